package dev.tandem.group;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;

@Entity
@Table(name = "study_sessions")
public class StudySession {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(name = "group_id", nullable = false)
    private long groupId;

    @Column(nullable = false, length = 200)
    private String topic;

    @Column(name = "starts_at", nullable = false)
    private Instant startsAt;

    @Column(name = "duration_minutes", nullable = false)
    private int durationMinutes;

    @Column(nullable = false, length = 200)
    private String location;

    protected StudySession() {
    }

    public StudySession(long groupId, String topic, Instant startsAt, int durationMinutes, String location) {
        this.groupId = groupId;
        this.topic = topic;
        this.startsAt = startsAt;
        this.durationMinutes = durationMinutes;
        this.location = location;
    }

    public SessionView toView() {
        return new SessionView(id, groupId, topic, startsAt, durationMinutes, location);
    }
}
