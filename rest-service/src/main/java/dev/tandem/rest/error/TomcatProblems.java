package dev.tandem.rest.error;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.apache.catalina.Host;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.Writer;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Problem+json for the requests Tomcat refuses while it parses them, before any filter or servlet
 * runs: a request line or headers above server.max-http-request-header-size, bytes that are not
 * allowed in the request target, a path whose percent-encoding is not UTF-8, an encoded slash or
 * NUL. Tomcat answers those through its host's error report valve (an HTML page by default); this
 * valve writes the same problem shape as {@link RestErrors}, with the gRPC code of the status.
 */
// Not when the jar runs without a web server (make seed, the bench's seeding): no MVC to hand errors to.
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@Configuration(proxyBeanMethods = false)
public class TomcatProblems {

    @Bean
    TomcatContextCustomizer problemJsonErrorReports() {
        // The host creates its error report valve when it starts, which is after this runs.
        return context -> {
            Host host = (Host) context.getParent();
            if (host instanceof StandardHost standard) {
                standard.setErrorReportValveClass(ProblemJsonErrorReportValve.class.getName());
            }
        };
    }

    /**
     * Whether Tomcat refused the request's head for its size: the request line and headers above
     * tandem.limits.max-header-bytes, or more headers than its maximum. Tomcat answers 400; this is
     * 431 RESOURCE_EXHAUSTED, what gRPC answers for metadata above the same limit. (Tomcat's own
     * messages, iib.requestheadertoolarge.error and headers.maxCountFail: HostileRestRequests'
     * rows fail if a Tomcat upgrade words them otherwise.)
     */
    static boolean headTooLarge(Throwable throwable) {
        String message = throwable == null ? null : throwable.getMessage();
        return message != null && (message.contains("Request header is too large")
                || message.contains("maximum allowed number of headers"));
    }

    /** Tomcat instantiates it by class name: public, with a public no-argument constructor. */
    public static class ProblemJsonErrorReportValve extends ErrorReportValve {

        private static final JsonMapper JSON = JsonMapper.builder().build();

        @Override
        protected void report(Request request, Response response, Throwable throwable) {
            int status = response.getStatus();
            // As Tomcat's own valve: only errors, only when nothing was written (Spring writes its
            // own problems), and only once.
            if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
                return;
            }
            if (status == 400 && headTooLarge(throwable)) {
                status = 431;
                response.setStatus(status);
            }
            HttpStatus known = HttpStatus.resolve(status);
            String title = known == null ? "Error" : known.getReasonPhrase();
            Map<String, Object> problem = new LinkedHashMap<>();
            problem.put("title", title);
            problem.put("status", status);
            problem.put("detail", throwable != null && throwable.getMessage() != null
                    ? "the request could not be read: " + throwable.getMessage()
                    : "the request could not be read (" + title + ")");
            problem.put(RestErrors.CODE, RestErrors.codeFor(HttpStatusCode.valueOf(status)).name());
            try {
                response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
                response.setCharacterEncoding("UTF-8");
                Writer writer = response.getReporter();
                if (writer != null) {
                    writer.write(JSON.writeValueAsString(problem));
                    response.finishResponse();
                }
            } catch (IOException | IllegalStateException e) {
                // The connection is gone or the response already committed: nothing more to send.
            }
        }
    }
}
