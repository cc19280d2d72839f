package dev.tandem.rest.admission;

import dev.tandem.admission.AdmissionControl;
import dev.tandem.error.DomainException;
import dev.tandem.error.DomainProblems;
import dev.tandem.rest.error.RestErrors;
import dev.tandem.rest.server.ActuatorPaths;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Admission control on REST ({@link AdmissionControl}), in Tomcat's pipeline: a request over the
 * instance's concurrency limit is answered 503 problem+json with Retry-After before any servlet
 * filter, the observation, Spring MVC or its exception handling run for it.
 *
 * <p>Why a valve and not a servlet filter: past saturation most requests are refused, and every CPU
 * second a refusal takes is one the admitted requests lack (at twice the capacity, goodput stays at
 * 0.8x of the peak only if a refusal costs under a sixth of a served request). A filter's refusal went
 * through the whole filter chain and Spring's exception resolution and cost about what a warm
 * GetGroup does (README, "Under overload"); here it is Tomcat's parsing plus one small JSON write.
 * The price: refusals are not in http.server.requests (they are in tandem.admission.refused), and
 * the limit is asked before the per-client rate limit, so a client over its rate holds a permit for
 * the few microseconds its 429 takes.
 *
 * <p>The actuator is never limited, so an instance at its limit still answers its health probes and
 * its metrics. (Not refused is not served at once: on the API port a probe waits for a carrier thread
 * with the requests, so on a CPU-saturated instance it waits as long as they do; a management port
 * of its own runs on platform threads, dev.tandem.management.ManagementThreads.) Nor is a GET of an
 * event stream's path ({@code streams}): streams have their own limit
 * (tandem.watch.max-watchers), and gRPC's admission never limits its streaming calls either. By the
 * path, not the Accept header: a header is the client's to send, and one naming a stream among other
 * types would let any request past the limit.
 */
final class AdmissionValve extends ValveBase {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final AdmissionControl admission;
    private final ActuatorPaths actuator;
    private final Pattern streams;

    AdmissionValve(AdmissionControl admission, ActuatorPaths actuator, Pattern streams) {
        super(true); // async supported: a stream (SSE) passes through it
        this.admission = admission;
        this.actuator = actuator;
        this.streams = streams;
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
        // The actuator is never limited; nor is the container's second pass of an asynchronous request
        // (a stream the server ends, an SSE emitter completing): its first pass already took and gave
        // back its permit, and a refusal now would be written into the stream it ends.
        // (Tomcat's own state: the servlet dispatcher type says ASYNC only once the dispatch reaches the servlet.)
        if (actuator.serves(request) || request.isAsyncDispatching() || asksForAStream(request)) {
            getNext().invoke(request, response);
            return;
        }
        AdmissionControl.Permit permit = admission.tryAdmit();
        if (permit == null) {
            refuse(request, response, admission.refusal());
            return;
        }
        boolean ended = false;
        try {
            getNext().invoke(request, response);
            ended = true;
        } finally {
            int status = response.getStatus();
            if (!ended || request.isAsyncStarted()) {
                permit.ignored();
            } else if (status == HttpServletResponse.SC_REQUEST_TIMEOUT) {
                // Tomcat's own answer to a body that did not arrive in time (BodyReadTimeout): how long
                // it held the permit measures its client, not this instance (as gRPC's RequestNotArrived).
                permit.ignored();
            } else if (status == HttpServletResponse.SC_SERVICE_UNAVAILABLE || status == HttpServletResponse.SC_GATEWAY_TIMEOUT) {
                // Something further down was the limit (the database, a deadline): shrink.
                permit.dropped();
            } else if (status >= HttpServletResponse.SC_INTERNAL_SERVER_ERROR) {
                // A failure inside the server says nothing of its capacity (as gRPC's INTERNAL).
                permit.ignored();
            } else {
                permit.completed();
            }
        }
    }

    private boolean asksForAStream(Request request) {
        // the suffix first: every admitted request asks, and most are not streams
        String uri = request.getRequestURI();
        return uri.endsWith("/events") && "GET".equals(request.getMethod()) && streams.matcher(uri).matches();
    }

    /** The problem RestErrors answers for the same DomainException, written without Spring MVC. */
    private static void refuse(Request request, Response response, DomainException refusal) throws IOException {
        ProblemDetail problem = DomainProblems.of(refusal);
        Map<String, Object> body = new LinkedHashMap<>();
        if (problem.getType() != null) { // Spring leaves about:blank out
            body.put("type", problem.getType().toString());
        }
        body.put("title", problem.getTitle());
        body.put("status", problem.getStatus());
        body.put("detail", problem.getDetail());
        body.put("instance", request.getRequestURI()); // as Spring MVC sets it: the request's path
        if (problem.getProperties() != null) {
            body.putAll(problem.getProperties());
        }
        byte[] bytes = JSON.writeValueAsBytes(body);
        response.setStatus(problem.getStatus());
        refusal.retryAfter().ifPresent(delay ->
                response.setHeader(HttpHeaders.RETRY_AFTER, RestErrors.retryAfterSeconds(delay)));
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }
}
