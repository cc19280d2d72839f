package dev.tandem.grpc.hello;

import dev.tandem.grpc.server.MalformedRequests;
import dev.tandem.proto.v1.HelloRequest;
import dev.tandem.proto.v1.HelloResponse;
import dev.tandem.proto.v1.HelloServiceGrpc;
import io.grpc.BindableService;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.StreamObserver;
import org.springframework.grpc.server.service.GrpcService;

/**
 * The framework's hello-world: tandem.v1.HelloService/Hello answers a constant message without
 * touching the domain, the database or the cache, like REST's {@code GET /api/v1/hello}. The bench
 * divides GetGroup's throughput by this one's (same tool, same concurrency) to show how much of the
 * framework's ceiling a real read keeps. It runs through the same server interceptors as every
 * other call (they are global), so the ceiling includes what they cost.
 */
@GrpcService
public class HelloGrpcService implements HelloServiceGrpc.AsyncService, BindableService {

    private static final HelloResponse HELLO = HelloResponse.newBuilder().setMessage("hello").build();

    @Override
    public void hello(HelloRequest request, StreamObserver<HelloResponse> responses) {
        responses.onNext(HELLO);
        responses.onCompleted();
    }

    /** Request bytes that do not parse are INVALID_ARGUMENT here too, as on StudyGroupService. */
    @Override
    public ServerServiceDefinition bindService() {
        return MalformedRequests.rejectedAsInvalidArgument(HelloServiceGrpc.bindService(this));
    }
}
