package dev.tandem.rest.hostile;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every operation of the REST API, with a request that succeeds: hostile requests are made from
 * it by breaking one thing. Placeholders {@code %GROUP%} (a group with room and a non-owner
 * member), {@code %MEMBER%} (that member) and {@code %OUTSIDER%} (a user neither member nor rater
 * of that group) are filled in from the seeded database when a request is sent.
 *
 * <p>A body is a template in which each field's value is {@code ${field}}; {@link #fields} gives
 * each field its proto path, its kind and a valid value, so one field can be replaced by anything,
 * down to bytes that are not UTF-8.
 */
enum RestOperation {

    GET_GROUP("GET", "/api/v1/groups/{id:%GROUP%}", null),
    LIST_GROUPS("GET", "/api/v1/groups?subject=physics&page_size=5", null),
    CREATE_GROUP("POST", "/api/v1/groups",
            "{\"name\":${name},\"subject\":${subject},\"description\":${description},\"capacity\":${capacity},\"ownerId\":${ownerId}}",
            Field.string("name", "name", "\"Graph theory\"", true),
            Field.string("subject", "subject", "\"algorithms\"", true),
            Field.string("description", "description", "\"Cliques and cuts\"", false),
            Field.int32("capacity", "capacity", "10", true),
            Field.int64("ownerId", "owner_id", "1", true)),
    UPDATE_GROUP("PATCH", "/api/v1/groups/{id:%GROUP%}",
            "{\"group\":{\"name\":${group.name},\"capacity\":${group.capacity}},\"updateMask\":${updateMask},\"expectedVersion\":${expectedVersion}}",
            Field.string("group.name", "group.name", "\"Graph theory II\"", false),
            Field.int32("group.capacity", "group.capacity", "40", false),
            Field.string("updateMask", "update_mask", "\"name,capacity\"", true),
            Field.int64("expectedVersion", "expected_version", "1", true)),
    DELETE_GROUP("DELETE", "/api/v1/groups/{id:%GROUP%}?expected_version=0", null),
    JOIN_GROUP("POST", "/api/v1/groups/{group_id:%GROUP%}/members", "{\"userId\":${userId}}",
            Field.int64("userId", "user_id", "%OUTSIDER%", true)),
    LEAVE_GROUP("DELETE", "/api/v1/groups/{group_id:%GROUP%}/members/{user_id:%MEMBER%}", null),
    RATE_GROUP("POST", "/api/v1/groups/{group_id:%GROUP%}/ratings",
            "{\"userId\":${userId},\"stars\":${stars},\"comment\":${comment}}",
            Field.int64("userId", "user_id", "%OUTSIDER%", true),
            Field.int32("stars", "stars", "4", true),
            Field.string("comment", "comment", "\"great\"", false)),
    SCHEDULE_SESSION("POST", "/api/v1/groups/{group_id:%GROUP%}/sessions",
            "{\"topic\":${topic},\"startTime\":${startTime},\"durationMinutes\":${durationMinutes},\"location\":${location}}",
            Field.string("topic", "topic", "\"Flows\"", true),
            Field.string("startTime", "start_time", "\"2031-01-01T18:00:00Z\"", true),
            Field.int32("durationMinutes", "duration_minutes", "90", true),
            Field.string("location", "location", "\"Room 1\"", false)),
    GET_LEADERBOARD("GET", "/api/v1/leaderboard?subject=physics&limit=5", null),
    CREATE_USER("POST", "/api/v1/users", "{\"name\":${name},\"email\":${email}}",
            Field.string("name", "name", "\"Ann Hostile\"", true),
            Field.string("email", "email", "\"ann.hostile@example.test\"", true)),
    GET_USER("GET", "/api/v1/users/{id:%OUTSIDER%}", null);

    enum Kind { STRING, INT32, INT64 }

    /**
     * One field of a request body.
     *
     * @param json     its path in the JSON, dot-separated
     * @param proto    its proto field path, as the problem's fieldViolations name it
     * @param valid    a valid value, as JSON text
     * @param required whether the domain rejects its default ("" or 0)
     */
    record Field(String json, String proto, Kind kind, String valid, boolean required) {

        static Field string(String json, String proto, String valid, boolean required) {
            return new Field(json, proto, Kind.STRING, valid, required);
        }

        static Field int32(String json, String proto, String valid, boolean required) {
            return new Field(json, proto, Kind.INT32, valid, required);
        }

        static Field int64(String json, String proto, String valid, boolean required) {
            return new Field(json, proto, Kind.INT64, valid, required);
        }

        /** The name within its object: "capacity" for group.capacity. */
        String name() {
            return json.substring(json.lastIndexOf('.') + 1);
        }

        boolean topLevel() {
            return !json.contains(".");
        }
    }

    final String method;
    /** The target, with each path variable written {name:value}. */
    final String target;
    final String bodyTemplate;
    final List<Field> fields;

    RestOperation(String method, String target, String bodyTemplate, Field... fields) {
        this.method = method;
        this.target = target;
        this.bodyTemplate = bodyTemplate;
        this.fields = List.of(fields);
    }

    boolean hasBody() {
        return bodyTemplate != null;
    }

    boolean isWrite() {
        return !method.equals("GET");
    }

    /** The valid target. */
    String validTarget() {
        return target.replaceAll("\\{[a-z_]+:([^}]*)}", "$1");
    }

    /** The names of the path variables, in order. */
    List<String> pathVariables() {
        return java.util.regex.Pattern.compile("\\{([a-z_]+):[^}]*}").matcher(target).results()
                .map(m -> m.group(1)).toList();
    }

    /** The target with one path variable's value replaced by {@code raw} (sent as it is). */
    String targetWith(String variable, String raw) {
        return target.replaceAll("\\{" + variable + ":[^}]*}", java.util.regex.Matcher.quoteReplacement(raw))
                .replaceAll("\\{[a-z_]+:([^}]*)}", "$1");
    }

    /** The valid body, as JSON text. */
    String validBody() {
        return bodyWith(Map.of());
    }

    /** The body with some fields' values replaced by the given JSON text. */
    String bodyWith(Map<String, String> replaced) {
        Map<String, String> values = new LinkedHashMap<>();
        fields.forEach(f -> values.put(f.json(), replaced.getOrDefault(f.json(), f.valid())));
        String body = bodyTemplate;
        for (Map.Entry<String, String> value : values.entrySet()) {
            body = body.replace("${" + value.getKey() + "}", value.getValue());
        }
        return body;
    }

    Field firstString() {
        return fields.stream().filter(f -> f.kind() == Kind.STRING).findFirst().orElse(null);
    }

    Field firstTopLevel() {
        return fields.stream().filter(Field::topLevel).findFirst().orElseThrow();
    }

    /** The proto paths of the fields whose absence the domain rejects. */
    List<String> requiredFields() {
        return fields.stream().filter(Field::required).map(Field::proto).toList();
    }
}
