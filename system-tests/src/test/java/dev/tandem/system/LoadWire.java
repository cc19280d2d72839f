package dev.tandem.system;

import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.ListGroupsResponse;
import dev.tandem.proto.v1.Membership;
import dev.tandem.proto.v1.User;

/**
 * The operations a steady load sends, through a balanced client of one wire (several instances
 * behind it). Writes carry the dev write token. A call that does not succeed throws.
 */
interface LoadWire {

    String name();

    Group getGroup(long id);

    ListGroupsResponse listGroups(String subject, int pageSize);

    User getUser(long id);

    User createUser(String name, String email);

    /** Renames the group and sets its capacity, at {@code expectedVersion}. */
    Group updateGroup(long id, String name, int capacity, long expectedVersion);

    Membership joinGroup(long groupId, long userId);

    void leaveGroup(long groupId, long userId);
}
