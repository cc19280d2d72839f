package dev.tandem.system;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Struct;
import com.google.protobuf.util.JsonFormat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** An instance's own view of its cache ({@code /actuator/cache}, exposed where the test asks for it). */
final class CacheStatus {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private CacheStatus() {
    }

    /** The status of the instance whose actuator listens on {@code port}; fails unless it answers 200. */
    static Struct of(int port) {
        return at("http://127.0.0.1:" + port + "/actuator/cache");
    }

    /** The status at an instance's {@code /actuator/cache} URL; fails unless it answers 200. */
    static Struct at(String url) {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException(url + " answered " + response.statusCode() + ": " + response.body());
            }
            Struct.Builder status = Struct.newBuilder();
            JsonFormat.parser().merge(response.body(), status);
            return status.build();
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException(url, e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A counter of one level of one cache: {@code counter(status, "group", "l1", "hits")}. */
    static double counter(Struct status, String cache, String level, String counter) {
        return status.getFieldsOrThrow("caches").getStructValue().getFieldsOrThrow(cache).getStructValue()
                .getFieldsOrThrow(level).getStructValue().getFieldsOrThrow(counter).getNumberValue();
    }

    /** Whether the instance reads L2 now (its log follower has caught up and nothing waits to be relayed). */
    static boolean l2Readable(Struct status) {
        return status.getFieldsOrThrow("l2").getStructValue().getFieldsOrThrow("readable").getBoolValue();
    }
}
