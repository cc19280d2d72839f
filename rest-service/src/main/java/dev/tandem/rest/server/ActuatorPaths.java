package dev.tandem.rest.server;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.List;

/**
 * Whether a request is the actuator's (health, metrics, the cache's endpoint), which the rate limit
 * and admission control never limit, so that a busy instance still answers its probes: by the paths
 * Boot serves the actuator at ({@link PathMappedEndpoints}), not by
 * {@code management.endpoints.web.base-path} read as text. Set to {@code /}, which Boot takes for the
 * root ({@code /health}), that text made the rate limit refuse health probes and made admission
 * control take every path for the actuator's, so that it limited nothing; with a trailing slash,
 * which Boot drops, the rate limit refused the probes too.
 */
// Not when the jar runs without a web server (make seed, the bench's seeding): no actuator there.
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@Component
public class ActuatorPaths {

    private final List<String> roots;

    public ActuatorPaths(PathMappedEndpoints endpoints) {
        List<String> paths = new ArrayList<>(endpoints.getAllPaths());
        // the links page; Boot's base path is cleaned ("" for the root, where there is none)
        if (!endpoints.getBasePath().isEmpty()) {
            paths.add(endpoints.getBasePath());
        }
        this.roots = List.copyOf(paths);
    }

    /**
     * By the request's path within the application as it was sent, which is what Spring MVC matches
     * handlers against ({@code /actuator/../api/v1/groups/1} reaches no API handler: 404).
     */
    public boolean serves(HttpServletRequest request) {
        return serves(request.getRequestURI().substring(request.getContextPath().length()));
    }

    private boolean serves(String path) {
        for (String root : roots) {
            // an endpoint mapped to the root itself ("/") is that path alone, not every path below it
            String parent = root.endsWith("/") ? root.substring(0, root.length() - 1) : root;
            if (path.equals(root) || (!parent.isEmpty() && path.startsWith(parent + "/"))) {
                return true;
            }
        }
        return false;
    }
}
