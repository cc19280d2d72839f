package dev.tandem.rest.representation;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.accept.HeaderContentNegotiationStrategy;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.HandlerMapping;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;

/**
 * The Accept header read as RFC 9110 12.5.1 reads it: Spring's parsing, then each type the route can
 * produce gets the quality of the most specific range that matches it, and a quality of 0 means
 * "not acceptable" (12.4.2).
 *
 * <p>Why Spring's own reading is not enough: it pairs every range with every producible type that
 * is compatible with it and takes the best pair, so a range with q=0 still selects its type
 * ({@code application/x-protobuf;q=0} was answered with protobuf), and a wider range selects what a
 * narrower one refused ({@code application/json;q=0, *}{@code /*} was answered with JSON).
 *
 * <p>While routes are being matched the route's types are not known yet: then the answer is the
 * ranges without those rated 0, which match exactly the routes that can send something (a q=0 range
 * can only take away). Once a route is chosen (Spring exposes its types as
 * {@link HandlerMapping#PRODUCIBLE_MEDIA_TYPES_ATTRIBUTE}), the answer is that route's acceptable
 * types with their qualities, best first, ties in the header's order as Spring breaks them. When
 * nothing is acceptable the answer is {@link HttpMediaTypeNotAcceptableException}, which every caller
 * in Spring MVC turns into a 406 (an empty list would leave the exception handlers no type to
 * answer in). A request without Accept, with {@code *}{@code /*}, or whose ranges are all of one
 * (non-zero) quality, takes Spring's path untouched: only differing qualities make the two readings differ.
 */
final class AcceptRanges extends HeaderContentNegotiationStrategy {

    @Override
    public List<MediaType> resolveMediaTypes(NativeWebRequest request) throws HttpMediaTypeNotAcceptableException {
        List<MediaType> ranges = super.resolveMediaTypes(request);
        // Spring's reading differs only where the ranges' qualities do (the bench's oha and most
        // clients send one type, or types without q): then it stands, and the route's types are not
        // rated again on every request.
        if (ranges.equals(MEDIA_TYPE_ALL_LIST) || allOfOneQuality(ranges)) {
            return ranges;
        }
        Set<?> producible = request.getAttribute(HandlerMapping.PRODUCIBLE_MEDIA_TYPES_ATTRIBUTE,
                RequestAttributes.SCOPE_REQUEST) instanceof Set<?> types ? types : Set.of();
        if (producible.isEmpty() || !producible.stream().allMatch(type -> type instanceof MediaType media && media.isConcrete())) {
            return admitting(ranges);
        }
        record Rated(MediaType type, int decidedBy) {
        }
        List<Rated> acceptable = new ArrayList<>();
        for (Object each : producible) {
            MediaType type = (MediaType) each;
            int decidedBy = mostSpecificRangeOf(type, ranges);
            if (decidedBy >= 0 && ranges.get(decidedBy).getQualityValue() > 0) {
                acceptable.add(new Rated(type.copyQualityValue(ranges.get(decidedBy)), decidedBy));
            }
        }
        if (acceptable.isEmpty()) {
            List<MediaType> supported = new ArrayList<>();
            producible.forEach(type -> supported.add((MediaType) type));
            throw new HttpMediaTypeNotAcceptableException(supported);
        }
        // Best quality first; among equals, the order of the ranges that rated them (Spring's sorted
        // ranges keep the header's order among equals), so a client listing protobuf first keeps it.
        acceptable.sort(Comparator.comparingDouble((Rated rated) -> -rated.type().getQualityValue())
                .thenComparingInt(Rated::decidedBy));
        return acceptable.stream().map(Rated::type).toList();
    }

    private static boolean allOfOneQuality(List<MediaType> ranges) {
        double first = ranges.getFirst().getQualityValue();
        for (MediaType range : ranges) {
            if (range.getQualityValue() != first || first == 0) {
                return false;
            }
        }
        return true;
    }

    /** The ranges that admit something: all of them (as they are, no copy: the usual case) unless some are rated 0. */
    private static List<MediaType> admitting(List<MediaType> ranges) throws HttpMediaTypeNotAcceptableException {
        boolean refusing = false;
        for (MediaType range : ranges) {
            refusing |= range.getQualityValue() == 0;
        }
        if (!refusing) {
            return ranges;
        }
        List<MediaType> admitting = new ArrayList<>(ranges.size());
        for (MediaType range : ranges) {
            if (range.getQualityValue() > 0) {
                admitting.add(range);
            }
        }
        if (admitting.isEmpty()) {
            throw new HttpMediaTypeNotAcceptableException(List.of());
        }
        return admitting;
    }

    /**
     * The index of the range that decides {@code type}'s quality: the most specific one that
     * includes it (a concrete type before {@code type/*}, that before {@code *}{@code /*}, more
     * parameters before fewer, as {@link MediaType#isMoreSpecific} orders them without their
     * qualities); the first of equally specific ones. -1 when no range includes it.
     */
    private static int mostSpecificRangeOf(MediaType type, List<MediaType> ranges) {
        int decidedBy = -1;
        MediaType decider = null;
        for (int i = 0; i < ranges.size(); i++) {
            MediaType range = ranges.get(i).removeQualityValue();
            if (range.includes(type) && (decider == null || range.isMoreSpecific(decider))) {
                decidedBy = i;
                decider = range;
            }
        }
        return decidedBy;
    }

    /**
     * Refuses, before the handler runs, a request to a route none of whose types the client accepts.
     * The handler mapping matched it on the ranges alone (a wider range admits the route), and the
     * 406 would otherwise come only when the answer is written: after a write has been performed.
     */
    static final class RefuseBeforeHandling implements HandlerInterceptor {

        /** The content negotiation's only strategy (RepresentationConfiguration), so its answer is the manager's. */
        private final AcceptRanges accept;

        RefuseBeforeHandling(AcceptRanges accept) {
            this.accept = accept;
        }

        @Override
        public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
                throws HttpMediaTypeNotAcceptableException {
            // Only a range rated below the others (q) can refuse a route that the mapping matched:
            // an Accept without one is not read a second time here.
            if (handler instanceof HandlerMethod && request.getAttribute(HandlerMapping.PRODUCIBLE_MEDIA_TYPES_ATTRIBUTE) != null
                    && ratesARange(request)) {
                // throws when nothing the route produces is acceptable
                accept.resolveMediaTypes(new ServletWebRequest(request, response));
            }
            return true;
        }

        /** Whether an Accept field of {@code request} has a parameter that could be a quality ("q", any case). */
        private static boolean ratesARange(HttpServletRequest request) {
            for (Enumeration<String> fields = request.getHeaders(HttpHeaders.ACCEPT); fields.hasMoreElements(); ) {
                String field = fields.nextElement();
                if (field.indexOf('q') >= 0 || field.indexOf('Q') >= 0) {
                    return true;
                }
            }
            return false;
        }
    }
}
