package dev.tandem.system;

import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.EquivalentAddressGroup;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import io.grpc.NameResolverRegistry;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One gRPC channel over several instances, balanced by grpc-java's own {@code round_robin} policy
 * (a subchannel per address; calls go only to READY ones), as a gRPC client would be set up to
 * reach a service with several instances. The addresses come from a tiny static name resolver.
 * Nothing here retries a call: what a call gets back is its answer, except that grpc-java itself
 * transparently retries a call that an instance refused unprocessed (its stream arrived after
 * the instance's GOAWAY), which is the point of GOAWAY.
 *
 * <p>Each call that completes is counted for the instance that answered it (the transport's
 * remote address), so a test can see that both instances really served.
 */
final class RoundRobinGrpcChannel implements AutoCloseable {

    private static final String SCHEME = "tandem-static";
    private static final long CALL_DEADLINE_SECONDS = 30;

    static {
        NameResolverRegistry.getDefaultRegistry().register(new StaticAddresses());
    }

    private final ManagedChannel channel;
    private final ServedBy servedBy;

    RoundRobinGrpcChannel(List<Integer> ports, ServedBy servedBy) {
        this.servedBy = servedBy;
        String target = SCHEME + ":///" + ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
        this.channel = NettyChannelBuilder.forTarget(target)
                .defaultLoadBalancingPolicy("round_robin")
                .usePlaintext()
                .intercept(new RecordServedBy())
                .build();
    }

    /** A stub for reads, with its own deadline (a bound against a hung call, not a timing assertion). */
    StudyGroupServiceGrpc.StudyGroupServiceBlockingStub reads() {
        return StudyGroupServiceGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_DEADLINE_SECONDS, TimeUnit.SECONDS);
    }

    /** A stub for writes: as {@link #reads()}, carrying the dev write token in {@code authorization}. */
    StudyGroupServiceGrpc.StudyGroupServiceBlockingStub writes() {
        Metadata token = new Metadata();
        token.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + Tokens.WRITER);
        return reads().withInterceptors(MetadataUtils.newAttachHeadersInterceptor(token));
    }

    /**
     * Lets subchannels waiting out their reconnect back-off try again now. A restarted instance is
     * otherwise found again only when its back-off (growing to minutes) expires; a test that has
     * just seen it healthy should not wait for that.
     */
    void resetConnectBackoff() {
        channel.resetConnectBackoff();
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }

    /** Counts every completed call for the instance whose transport carried it. */
    private final class RecordServedBy implements ClientInterceptor {
        @Override
        public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
            return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
                @Override
                public void start(Listener<A> listener, Metadata headers) {
                    ClientCall<Q, A> call = this;
                    super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                        @Override
                        public void onClose(Status status, Metadata trailers) {
                            SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
                            if (remote instanceof InetSocketAddress address) {
                                servedBy.record("grpc", address.getPort());
                            }
                            super.onClose(status, trailers);
                        }
                    }, headers);
                }
            };
        }
    }

    /** {@code tandem-static:///host:port,host:port}: those addresses, one subchannel each, forever. */
    private static final class StaticAddresses extends NameResolverProvider {
        @Override
        protected boolean isAvailable() {
            return true;
        }

        @Override
        protected int priority() {
            return 5;
        }

        @Override
        public String getDefaultScheme() {
            return SCHEME;
        }

        @Override
        public NameResolver newNameResolver(URI target, NameResolver.Args args) {
            if (!SCHEME.equals(target.getScheme())) {
                return null;
            }
            List<EquivalentAddressGroup> addresses = Arrays.stream(target.getPath().substring(1).split(","))
                    .map(hostPort -> {
                        int colon = hostPort.lastIndexOf(':');
                        return new EquivalentAddressGroup(new InetSocketAddress(hostPort.substring(0, colon),
                                Integer.parseInt(hostPort.substring(colon + 1))));
                    })
                    .toList();
            return new NameResolver() {
                @Override
                public String getServiceAuthority() {
                    return "tandem";
                }

                @Override
                public void start(Listener2 listener) {
                    listener.onResult(ResolutionResult.newBuilder().setAddresses(addresses).build());
                }

                @Override
                public void shutdown() {
                }
            };
        }
    }
}
