package dev.tandem.grpc;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2SettingsFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrame;

import com.google.rpc.ErrorInfo;
import com.google.protobuf.InvalidProtocolBufferException;

import java.io.IOException;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One gRPC call sent as HTTP/2 frames by hand (over the Netty that grpc-netty brings), for
 * what no gRPC client sends: grpc-java and grpc-go refuse to send a metadata key that gRPC does not
 * allow, yet a peer can, and the server must answer it; nor does either let a caller keep its
 * connection's flow-control window at 0, nor send a request and never end it.
 */
public final class RawHttp2Call {

    private RawHttp2Call() {
    }

    /** The call's closing header block (its trailers, or the whole answer when trailers-only). */
    public record Trailers(Http2Headers headers) {

        /** grpc-status as a number; -1 when the block has none. */
        public int grpcStatus() {
            CharSequence status = headers.get("grpc-status");
            return status == null ? -1 : Integer.parseInt(status.toString());
        }

        public boolean has(String name) {
            return headers.contains(name);
        }

        /** The ErrorInfo of the block's {@code grpc-status-details-bin}; fails the test when there is none. */
        public ErrorInfo errorInfo() throws InvalidProtocolBufferException {
            CharSequence details = headers.get("grpc-status-details-bin");
            if (details == null) {
                throw new AssertionError("no grpc-status-details-bin in " + headers);
            }
            // A binary header travels as base64, its padding left off (Base64's decoder does not require it).
            com.google.rpc.Status status = com.google.rpc.Status.parseFrom(Base64.getDecoder().decode(details.toString()));
            for (com.google.protobuf.Any detail : status.getDetailsList()) {
                if (detail.is(ErrorInfo.class)) {
                    return detail.unpack(ErrorInfo.class);
                }
            }
            throw new AssertionError("no ErrorInfo in " + status);
        }
    }

    /** A call whose request was sent but never ended ({@link #unfinished}): open until closed. */
    public static final class Unfinished implements AutoCloseable {

        private final EventLoopGroup loop;
        private final CompletableFuture<Trailers> answer;

        private Unfinished(EventLoopGroup loop, CompletableFuture<Trailers> answer) {
            this.loop = loop;
            this.answer = answer;
        }

        /** The answer's last header block, waited for at most {@code bound}. */
        public Trailers answer(Duration bound) throws Exception {
            return answer.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        }

        /** Whether the server has answered (or reset the stream) yet. */
        public boolean answered() {
            return answer.isDone();
        }

        /** Drops the connection, which is what a client does when it gives up. */
        @Override
        public void close() {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * Calls {@code path} with {@code message} as its one request message and {@code metadata} in the
     * headers, but never ends the request: HEADERS and the message's DATA frame go out, END_STREAM
     * never does, so the server has the whole message yet never learns that the request is complete
     * (no half-close). The connection stays open until the returned call is closed.
     */
    public static Unfinished unfinished(int port, String path, Map<String, String> metadata, byte[] message) throws Exception {
        EventLoopGroup loop = new NioEventLoopGroup(1);
        try {
            CompletableFuture<Trailers> answer = new CompletableFuture<>();
            send(connect(loop, port, Http2Settings.defaultSettings()), port, path, metadata, 0, message, false, answer);
            return new Unfinished(loop, answer);
        } catch (Exception | Error e) {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    /**
     * Calls {@code path} on the server at {@code port} with {@code message} as its one request
     * message and {@code metadata} added to the headers as given (no validation); waits at most
     * 30 s for the answer's last header block.
     */
    public static Trailers unary(int port, String path, Map<String, String> metadata, byte[] message) throws Exception {
        return unary(port, path, metadata, 0, message);
    }

    /** {@link #unary}, with {@code flags} as the message frame's first byte (1: compressed). */
    public static Trailers unary(int port, String path, Map<String, String> metadata, int flags, byte[] message) throws Exception {
        EventLoopGroup loop = new NioEventLoopGroup(1);
        try {
            CompletableFuture<Trailers> answer = new CompletableFuture<>();
            send(connect(loop, port, Http2Settings.defaultSettings()), port, path, metadata, flags, message, true, answer);
            return answer.get(30, TimeUnit.SECONDS);
        } finally {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /** A call whose client takes nothing ({@link #takingNothing}) until it reads again: open until closed. */
    public static final class TakingNothing implements AutoCloseable {

        private final EventLoopGroup loop;
        private final Channel connection;
        private final CompletableFuture<Trailers> answer;

        private TakingNothing(EventLoopGroup loop, Channel connection, CompletableFuture<Trailers> answer) {
            this.loop = loop;
            this.connection = connection;
            this.answer = answer;
        }

        /**
         * The client reads again: a new initial window lets the server send what waited (RFC 9113
         * 6.9.2: the change applies to the open streams too), and with it the status queued behind
         * it. Returns the answer's last header block, waited for at most {@code bound}.
         */
        public Trailers readAgain(Duration bound) throws Exception {
            connection.writeAndFlush(new DefaultHttp2SettingsFrame(new Http2Settings().initialWindowSize(1 << 20))).sync();
            try {
                return answer.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("the call did not end within " + bound + " once its client read again", e);
            }
        }

        @Override
        public void close() {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * Calls {@code path} with {@code message} as a client that takes nothing: its connection gives
     * every stream a flow-control window of 0, so the server can send no message on it, and holds
     * the call open until closed.
     */
    public static TakingNothing takingNothing(int port, String path, byte[] message) throws Exception {
        EventLoopGroup loop = new NioEventLoopGroup(1);
        try {
            CompletableFuture<Trailers> answer = new CompletableFuture<>();
            Channel connection = connect(loop, port, Http2Settings.defaultSettings().initialWindowSize(0));
            send(connection, port, path, Map.of(), 0, message, true, answer);
            return new TakingNothing(loop, connection, answer);
        } catch (Exception | Error e) {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    private static Channel connect(EventLoopGroup loop, int port, Http2Settings settings) throws InterruptedException {
        return new Bootstrap().group(loop).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        channel.pipeline().addLast(Http2FrameCodecBuilder.forClient().validateHeaders(false)
                                        .initialSettings(settings).build(),
                                new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()));
                    }
                })
                .connect("127.0.0.1", port).sync().channel();
    }

    /**
     * Opens a stream on {@code connection} and sends the call, its message ending the request when
     * {@code endStream}; {@code answer} gets its last header block.
     */
    private static void send(Channel connection, int port, String path, Map<String, String> metadata, int flags,
                             byte[] message, boolean endStream, CompletableFuture<Trailers> answer) throws InterruptedException {
        Http2StreamChannel stream = new Http2StreamChannelBootstrap(connection)
                .handler(new SimpleChannelInboundHandler<Http2StreamFrame>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext context, Http2StreamFrame frame) {
                        if (frame instanceof Http2HeadersFrame headers && headers.isEndStream()) {
                            answer.complete(new Trailers(headers.headers()));
                        } else if (frame instanceof Http2ResetFrame reset) {
                            answer.completeExceptionally(new IOException("the server reset the stream: " + reset.errorCode()));
                        }
                    }
                })
                .open().sync().getNow();
        Http2Headers headers = new DefaultHttp2Headers(false).method("POST").scheme("http").path(path)
                .authority("127.0.0.1:" + port).add("content-type", "application/grpc").add("te", "trailers");
        metadata.forEach(headers::add);
        stream.write(new DefaultHttp2HeadersFrame(headers, false));
        // The gRPC message frame: its flags (0: not compressed), its length, the message.
        ByteBuf body = Unpooled.buffer(5 + message.length).writeByte(flags).writeInt(message.length).writeBytes(message);
        stream.writeAndFlush(new DefaultHttp2DataFrame(body, endStream));
    }
}
