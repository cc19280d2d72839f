package dev.tandem.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * A text/event-stream read as an EventSource reads it, for the tests that read a group's events
 * (GroupEventsRestTest in process, the system tests' RestWire against the jar): the lines up to a
 * blank one are a block; {@code field:value}, one space after the colon dropped, a line without a
 * colon a field with no value; several {@code data:} lines joined with newlines; a line that starts
 * with a colon a comment. Fields other than id, event and data are ignored, as an EventSource does.
 */
public final class ServerSentEvents {

    private ServerSentEvents() {
    }

    /** One block: its fields as sent, null when absent ({@code comment}: after the colon, as is). */
    public record Event(String id, String name, String data, String comment) {
    }

    /** Hands each block of {@code body} to {@code each}, in order, until the stream ends. */
    public static void read(InputStream body, Consumer<Event> each) throws IOException {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
            String id = null, name = null, comment = null;
            StringBuilder data = null;
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.isEmpty()) {
                    if (id != null || name != null || data != null || comment != null) {
                        each.accept(new Event(id, name, data == null ? null : data.toString(), comment));
                    }
                    id = name = comment = null;
                    data = null;
                } else if (line.startsWith(":")) {
                    comment = line.substring(1);
                } else {
                    int colon = line.indexOf(':');
                    String field = colon < 0 ? line : line.substring(0, colon);
                    String value = colon < 0 ? "" : line.substring(colon + 1);
                    value = value.startsWith(" ") ? value.substring(1) : value;
                    switch (field) {
                        case "id" -> id = value;
                        case "event" -> name = value;
                        case "data" -> data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
                        default -> { }
                    }
                }
            }
        }
    }
}
