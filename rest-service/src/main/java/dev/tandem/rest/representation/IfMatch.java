package dev.tandem.rest.representation;

import dev.tandem.error.DomainProblems;
import org.springframework.http.ETag;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code If-Match} on a write (RFC 9110 13.1.1): the write is performed only if the resource is
 * still what the client read, and a false condition is 412 with nothing done. A route hands the
 * condition to the domain, which evaluates it under the write's row lock on the resource as stored
 * (GroupService#requireCondition): evaluated here, against a cached read, it could pass on a state
 * another instance's write had already replaced.
 *
 * <p>The condition is true when the field is {@code *} (the resource exists: a missing one is 404
 * before any condition), or names, compared strongly, one of the resource's current tags, the
 * {@code ETag} a GET answers ({@link ConditionalGets}). The tag hashes everything the resource
 * shows, so it changes with a join or a rating, not only with the {@code version} an
 * {@code expected_version} compares: both conditions are checked when both are sent. Any
 * representation's tag is accepted (the JSON and the protobuf tags name the same content hash), so a
 * client may read in one and write in another. A weak tag never matches (13.1.1 compares
 * strongly), nor does a field that holds no entity tag at all.
 */
public final class IfMatch {

    private final WireForms forms;

    IfMatch(WireForms forms) {
        this.forms = forms;
    }

    /**
     * The condition of a request whose If-Match field values are {@code field} (Spring joins several
     * lines with commas), to be handed the resource's current view; null when there is none (the
     * write is unconditional). The condition throws a 412 problem when it is false.
     */
    public <V> Consumer<V> condition(String field, String resourceType, Object resourceName) {
        if (field == null) {
            return null;
        }
        List<ETag> named = ETag.parse(field);
        if (named.stream().anyMatch(ETag::isWildcard)) {
            return current -> { };
        }
        return current -> {
            for (WireForms.Representation representation : WireForms.Representation.values()) {
                String tag = forms.entityTag(current, representation);
                if (tag != null && named.stream().anyMatch(sent -> sent.compare(ETag.create(tag), true))) {
                    return;
                }
            }
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.PRECONDITION_FAILED,
                    "If-Match: the " + resourceType + " has changed since that tag was read (or it is not an entity tag "
                            + "of it); nothing was done: read it again (GET) and send its current ETag");
            problem.setProperty(DomainProblems.RESOURCE, Map.of("type", resourceType, "name", String.valueOf(resourceName)));
            throw new ErrorResponseException(HttpStatus.PRECONDITION_FAILED, problem, null);
        };
    }
}
