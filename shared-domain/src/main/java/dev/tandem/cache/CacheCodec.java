package dev.tandem.cache;

import java.io.IOException;

/**
 * How the values of one cache travel through Redis: to bytes and back. L2 puts its own format byte
 * in front ({@link L2Tier}); a value that does not decode is a miss. Both services and every build
 * that shares a Redis must read each other's bytes, so a codec changes only compatibly.
 */
public interface CacheCodec<V> {

    byte[] encode(V value);

    /** The value {@link #encode} wrote; throws (IOException or IllegalArgumentException) for bytes it cannot read. */
    V decode(byte[] bytes) throws IOException;

    /** The decoding half of a codec, for {@link #of}. */
    @FunctionalInterface
    interface Decoder<V> {
        V decode(byte[] bytes) throws IOException;
    }

    /** A codec made of two functions, e.g. a protobuf mapping's {@code toByteArray} and {@code parseFrom}. */
    static <V> CacheCodec<V> of(java.util.function.Function<V, byte[]> encoder, Decoder<V> decoder) {
        return new CacheCodec<>() {
            @Override
            public byte[] encode(V value) {
                return encoder.apply(value);
            }

            @Override
            public V decode(byte[] bytes) throws IOException {
                return decoder.decode(bytes);
            }
        };
    }
}
