package dev.tandem.group;

import java.util.List;

/** One page of ListGroups; {@code nextPageToken} is "" on the last page. */
public record GroupPage(List<GroupSummary> groups, String nextPageToken) {
}
