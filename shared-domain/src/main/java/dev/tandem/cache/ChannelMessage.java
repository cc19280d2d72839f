package dev.tandem.cache;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;

/**
 * One message on {@code <prefix>invalidations}. Every instance publishes its invalidations,
 * flushes, heartbeats and a goodbye there, each stamped with its id, its sequence number (bumped by
 * every invalidation or flush it tried to publish, so that a heartbeat reveals one that never
 * arrived), the wall-clock publish time (for the lag histogram) and its own {@link System#nanoTime()}
 * (which only the publisher reads, to time its heartbeat's round trip).
 *
 * <p>Encoded with a leading format byte; a message of an unknown format is treated as a lost one.
 */
record ChannelMessage(Kind kind, String publisher, long sequence, Instant publishedAt, long originNanos,
                      Invalidation invalidation) {

    static final byte FORMAT = 1;

    enum Kind { INVALIDATE, FLUSH, HEARTBEAT, GOODBYE }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            out.writeByte(kind.ordinal());
            out.writeUTF(publisher);
            out.writeLong(sequence);
            out.writeLong(publishedAt.getEpochSecond());
            out.writeInt(publishedAt.getNano());
            out.writeLong(originNanos);
            out.writeInt(invalidation.targets().size());
            for (Invalidation.Target t : invalidation.targets()) {
                out.writeByte(t.cache().index());
                if (t.key() instanceof Long id) {
                    out.writeByte(0);
                    out.writeLong(id);
                } else {
                    out.writeByte(1);
                    out.writeUTF((String) t.key());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static ChannelMessage decode(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            if (in.readByte() != FORMAT) {
                throw new IllegalArgumentException("unknown channel message format " + bytes[0]);
            }
            Kind kind = Kind.values()[in.readByte()];
            String publisher = in.readUTF();
            long sequence = in.readLong();
            Instant publishedAt = Instant.ofEpochSecond(in.readLong(), in.readInt());
            long originNanos = in.readLong();
            int n = in.readInt();
            Invalidation invalidation = Invalidation.create();
            for (int i = 0; i < n; i++) {
                CacheName<?> cache = CacheName.byIndex(in.readByte());
                Object key = in.readByte() == 0 ? (Object) in.readLong() : in.readUTF();
                invalidation.add(new Invalidation.Target(cache, key));
            }
            return new ChannelMessage(kind, publisher, sequence, publishedAt, originNanos, invalidation);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("unreadable channel message", e);
        }
    }
}
