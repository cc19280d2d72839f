package dev.tandem.group;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

import java.time.Instant;

@Entity
@Table(name = "study_groups")
public class StudyGroup {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false, length = 100)
    private String name;

    @Column(nullable = false, length = 50)
    private String subject;

    @Column(nullable = false, length = 1000)
    private String description;

    @Column(nullable = false)
    private int capacity;

    @Column(name = "owner_id", nullable = false)
    private long ownerId;

    /**
     * Starts at {@link #FIRST_VERSION} (Hibernate keeps a non-negative version set before persist):
     * DeleteGroup's expected_version 0 means "whatever the version", and a group at 0 could not be
     * deleted on the condition that it still was.
     */
    @Version
    private long version = FIRST_VERSION;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    /** A new group's version (V6 moved every existing group's up by one). */
    public static final long FIRST_VERSION = 1;

    protected StudyGroup() {
    }

    public StudyGroup(String name, String subject, String description, int capacity, long ownerId, Instant createdAt) {
        this.name = name;
        this.subject = subject;
        this.description = description;
        this.capacity = capacity;
        this.ownerId = ownerId;
        this.createdAt = createdAt;
    }

    public Long getId() {
        return id;
    }

    public String getName() {
        return name;
    }

    public String getSubject() {
        return subject;
    }

    public String getDescription() {
        return description;
    }

    public int getCapacity() {
        return capacity;
    }

    public long getOwnerId() {
        return ownerId;
    }

    public long getVersion() {
        return version;
    }

    public Instant getCreatedAt() {
        return createdAt;
    }

    void apply(GroupFields fields) {
        this.name = fields.name();
        this.subject = fields.subject();
        this.description = fields.description();
        this.capacity = fields.capacity();
    }

    GroupFields fields() {
        return new GroupFields(name, subject, description, capacity);
    }
}
