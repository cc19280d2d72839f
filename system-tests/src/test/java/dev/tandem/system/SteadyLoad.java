package dev.tandem.system;

import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.User;
import dev.tandem.testsupport.TestDatabase;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A steady load of reads and writes on one or more wires, from a few client threads that each send
 * one request, pause {@link #PAUSE}, and so on, until stopped. Every request must succeed; each one
 * that does not is recorded as a failure with what it got.
 *
 * <p>Readers ask GetGroup, ListGroups and GetUser of the seeded data at random (fixed seeds).
 * Each writer owns one group and cycles through CreateUser, UpdateGroup (rename, at the version it
 * last got back), JoinGroup (the user it just created) and LeaveGroup (one it added before), so it
 * knows exactly what the database must hold afterwards: {@link #writesMissingFromDatabase} compares.
 */
final class SteadyLoad implements AutoCloseable {

    static final Duration PAUSE = Duration.ofMillis(40);
    private static final int MAX_FAILURES_KEPT = 50;

    private final TestDatabase database;
    private final List<String> subjects;
    private final List<Thread> threads = new ArrayList<>();
    private final List<Writer> writers = new ArrayList<>();
    private final LongAdder succeeded = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final List<String> failures = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, LongAdder> succeededPerWire = new ConcurrentHashMap<>();
    private volatile boolean running;

    SteadyLoad(TestDatabase database) {
        this.database = database;
        List<String> seeded = database.column("SELECT DISTINCT subject FROM study_groups ORDER BY subject");
        List<String> all = new ArrayList<>(seeded);
        all.add("");
        this.subjects = List.copyOf(all);
    }

    /** {@code count} reader threads on {@code wire}. */
    SteadyLoad readers(LoadWire wire, int count) {
        for (int i = 0; i < count; i++) {
            Random random = new Random(31L * threads.size() + 7);
            String name = wire.name() + "-reader-" + i;
            threads.add(Thread.ofPlatform().name("load-" + name).unstarted(() -> loop(wire, name, () -> read(wire, random))));
        }
        return this;
    }

    /** One writer thread on {@code wire} that owns group {@code groupId} (no other writer may touch it). */
    SteadyLoad writer(LoadWire wire, long groupId) {
        Writer writer = new Writer(wire, groupId, wire.name() + "-w" + writers.size());
        writers.add(writer);
        threads.add(Thread.ofPlatform().name("load-" + writer.tag).unstarted(() -> loop(wire, writer.tag, writer::step)));
        return this;
    }

    void start() {
        running = true;
        threads.forEach(Thread::start);
    }

    /** Stops every thread after its current request (bounded by the clients' own timeouts). */
    void stop() {
        running = false;
        for (Thread thread : threads) {
            try {
                thread.join(Duration.ofSeconds(60));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (thread.isAlive()) {
                throw new IllegalStateException(thread.getName() + " did not stop");
            }
        }
    }

    @Override
    public void close() {
        if (running) {
            stop();
        }
    }

    long succeeded() {
        return succeeded.sum();
    }

    long succeeded(String wire) {
        LongAdder n = succeededPerWire.get(wire);
        return n == null ? 0 : n.sum();
    }

    long failed() {
        return failed.sum();
    }

    /** The first failures, each with its time, thread and what it got. */
    List<String> failures() {
        synchronized (failures) {
            return List.copyOf(failures);
        }
    }

    /** Users the writers created (each answered OK). */
    List<Long> createdUsers() {
        List<Long> ids = new ArrayList<>();
        writers.forEach(w -> ids.addAll(w.createdUsers.keySet()));
        return ids;
    }

    /**
     * Every write that was answered OK, checked against the database: each created user is there
     * with its e-mail; each owned group has the name, capacity and version of its last OK update,
     * and exactly the members that the OK joins and leaves leave it with. Empty when all is there.
     */
    List<String> writesMissingFromDatabase() {
        List<String> problems = new ArrayList<>();
        for (Writer w : writers) {
            String expected = w.name + "|" + w.capacity + "|" + w.version;
            String actual = database.value("SELECT CONCAT(name, '|', capacity, '|', version) FROM study_groups WHERE id = ?", w.groupId);
            if (!expected.equals(actual)) {
                problems.add("group " + w.groupId + " (" + w.tag + "): expected name|capacity|version " + expected + ", database has " + actual);
            }
            Set<Long> members = new TreeSet<>();
            database.column("SELECT user_id FROM group_members WHERE group_id = ?", w.groupId).forEach(id -> members.add(Long.parseLong(id)));
            if (!members.equals(new TreeSet<>(w.members))) {
                problems.add("group " + w.groupId + " (" + w.tag + "): expected members " + new TreeSet<>(w.members) + ", database has " + members);
            }
            w.createdUsers.forEach((id, email) -> {
                String stored = database.value("SELECT email FROM users WHERE id = ?", id);
                if (!email.equals(stored)) {
                    problems.add("user " + id + " (" + w.tag + "): expected e-mail " + email + ", database has " + stored);
                }
            });
        }
        return problems;
    }

    private void loop(LoadWire wire, String name, Runnable step) {
        while (running) {
            try {
                step.run();
                succeeded.increment();
                succeededPerWire.computeIfAbsent(wire.name(), k -> new LongAdder()).increment();
            } catch (RuntimeException e) {
                failed.increment();
                synchronized (failures) {
                    if (failures.size() < MAX_FAILURES_KEPT) {
                        failures.add(Instant.now() + " " + name + ": " + e);
                    }
                }
            }
            try {
                Thread.sleep(PAUSE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void read(LoadWire wire, Random random) {
        switch (random.nextInt(3)) {
            case 0 -> wire.getGroup(1 + random.nextInt(50));
            case 1 -> wire.listGroups(subjects.get(random.nextInt(subjects.size())), 10);
            default -> wire.getUser(1 + random.nextInt(100));
        }
    }

    /** One writer's group and everything it changed, as the OK answers say. */
    private final class Writer {
        final LoadWire wire;
        final long groupId;
        final String tag;
        final Set<Long> members = new TreeSet<>();
        final Deque<Long> joined = new ArrayDeque<>();
        final Map<Long, String> createdUsers = new ConcurrentHashMap<>();
        String name;
        int capacity;
        long version;
        Long toJoin;
        long step;

        Writer(LoadWire wire, long groupId, String tag) {
            this.wire = wire;
            this.groupId = groupId;
            this.tag = tag;
            String[] row = database.value("SELECT CONCAT(name, '|', capacity, '|', version) FROM study_groups WHERE id = ?", groupId)
                    .split("\\|");
            this.name = row[0];
            this.capacity = Integer.parseInt(row[1]);
            this.version = Long.parseLong(row[2]);
            database.column("SELECT user_id FROM group_members WHERE group_id = ?", groupId).forEach(id -> members.add(Long.parseLong(id)));
        }

        void step() {
            long n = step++;
            switch ((int) (n % 4)) {
                case 0 -> {
                    String email = tag.toLowerCase() + "-" + n + "@load.test";
                    User user = wire.createUser("Load " + tag + " " + n, email);
                    createdUsers.put(user.getId(), email);
                    toJoin = user.getId();
                }
                case 1 -> {
                    // Capacity 500 (the maximum), so that the joins below always fit.
                    Group updated = wire.updateGroup(groupId, "Load " + tag + " #" + n, 500, version);
                    name = updated.getName();
                    capacity = updated.getCapacity();
                    version = updated.getVersion();
                }
                case 2 -> {
                    if (toJoin != null) {
                        long user = toJoin;
                        toJoin = null;
                        wire.joinGroup(groupId, user);
                        members.add(user);
                        joined.add(user);
                    } else {
                        wire.getGroup(groupId);
                    }
                }
                default -> {
                    if (joined.size() > 1) {
                        long user = joined.peek();
                        wire.leaveGroup(groupId, user);
                        joined.poll();
                        members.remove(user);
                    } else {
                        wire.getGroup(groupId);
                    }
                }
            }
        }
    }
}
