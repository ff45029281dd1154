package io.ringkv.node;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The scheduling group Linux gives this process's session (its <em>autogroup</em>) and that
 * group's nice value. With {@code kernel.sched_autogroup_enabled} the kernel first shares the CPU
 * between sessions' groups and only then between the threads of one, so a per-thread nice value
 * weighs a thread against its own session only; the group's nice value weighs the whole session
 * against the others. Any process may raise it, and lower it again as far as 0, without privilege
 * (a value below 0 needs {@code CAP_SYS_NICE}).
 *
 * <p>The kernel groups sessions only in the root CPU cgroup; in another one (a container, a
 * service manager's unit with CPU accounting) that cgroup's weight sets the share instead.
 * {@link #refusal} lets this process change it only in the root and when its session holds no other process:
 * then the setting dies with the process, whatever ends it (a {@code SIGKILL} included), and
 * nothing else is slowed. A process that shares its session (a node run from an interactive
 * shell, the nodes {@code ringkv up} starts) is left as it is.
 *
 * <p>Reads {@code /proc}; the root is a parameter so that tests can give their own tree.
 *
 * <p>Threading: not thread-safe; one thread at a time.
 */
final class SessionAutogroup {
    private static final Pattern AUTOGROUP_LINE = Pattern.compile("/autogroup-\\d+ nice (-?\\d+)\\s*");
    /** The kernel takes a new value from an unprivileged process at most every 100 ms (EAGAIN otherwise). */
    private static final int WRITE_ATTEMPTS = 6;
    private static final long WRITE_RETRY_MILLIS = 150;
    /** The session's place among the fields of {@code /proc/PID/stat} after the command: state, ppid, pgrp, session. */
    private static final int SESSION_FIELD = 3;

    private final Path proc;
    private final Path cgroups;
    private final long pid;

    /**
     * @param proc    where {@code /proc} is
     * @param cgroups where the cgroup v2 hierarchy is mounted ({@code /sys/fs/cgroup})
     */
    SessionAutogroup(Path proc, Path cgroups, long pid) {
        this.proc = proc;
        this.cgroups = cgroups;
        this.pid = pid;
    }

    /** This process's. */
    static SessionAutogroup ofThisProcess() {
        return new SessionAutogroup(Path.of("/proc"), Path.of("/sys/fs/cgroup"), ProcessHandle.current().pid());
    }

    /** Why this process must leave its autogroup's nice value as it is; null when it may change it. */
    String refusal() throws IOException {
        Path enabled = proc.resolve("sys/kernel/sched_autogroup_enabled");
        if (!Files.isReadable(enabled) || !Files.isReadable(file())) {
            return "this kernel does not group sessions for scheduling (no " + enabled + " or " + file() + ")";
        }
        if (!Files.readString(enabled).strip().equals("1")) {
            return "the kernel does not group sessions for scheduling (kernel.sched_autogroup_enabled is 0)";
        }
        String cgroup = cpuCgroup();
        if (cgroup != null) {
            return "the process is in CPU cgroup " + cgroup + ", whose own weight sets its share (the kernel groups "
                    + "sessions only in the root CPU cgroup)";
        }
        long session = sessionOf(pid);
        if (session != pid) {
            return "the process shares its session " + session + " with others (run it as a session of its own, "
                    + "as a service manager or setsid does)";
        }
        long other = otherMember(session);
        if (other >= 0) {
            return "process " + other + " also runs in the node's session";
        }
        return null;
    }

    /** The group's nice value now. */
    int nice() throws IOException {
        String line = Files.readString(file());
        Matcher m = AUTOGROUP_LINE.matcher(line);
        if (!m.matches()) {
            throw new IOException("unexpected " + file() + ": " + line.strip());
        }
        return Integer.parseInt(m.group(1));
    }

    /** Sets the group's nice value, trying again while the kernel says to wait (at most once per 100 ms). */
    void setNice(int nice) throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                Files.writeString(file(), Integer.toString(nice));
                return;
            } catch (NoSuchFileException e) {
                throw e;
            } catch (IOException e) {
                if (attempt == WRITE_ATTEMPTS) {
                    throw e;
                }
                Thread.sleep(WRITE_RETRY_MILLIS);
            }
        }
    }

    /**
     * The CPU cgroup this process is in when it is not the root one, where autogroups do not act;
     * null in the root. Version 1: the {@code cpu} controller's line of {@code /proc/PID/cgroup};
     * version 2 (the {@code 0::} line alone): a cgroup below the root while the root hands its
     * children the {@code cpu} controller.
     */
    private String cpuCgroup() throws IOException {
        Path file = proc.resolve(Long.toString(pid)).resolve("cgroup");
        if (!Files.isReadable(file)) {
            return null;
        }
        String unified = null;
        for (String line : Files.readAllLines(file)) {
            String[] parts = line.split(":", 3);
            if (parts.length < 3) {
                continue;
            }
            if (parts[0].equals("0") && parts[1].isEmpty()) {
                unified = parts[2];
            } else if (Arrays.asList(parts[1].split(",")).contains("cpu")) {
                return parts[2].equals("/") ? null : parts[2];
            }
        }
        if (unified == null || unified.equals("/")) {
            return null;
        }
        Path control = cgroups.resolve("cgroup.subtree_control");
        boolean cpuBelowRoot = Files.isReadable(control)
                && Arrays.asList(Files.readString(control).strip().split(" ")).contains("cpu");
        return cpuBelowRoot ? unified : null;
    }

    private Path file() {
        return proc.resolve(Long.toString(pid)).resolve("autogroup");
    }

    /** A process other than this one in {@code session}, or -1. */
    private long otherMember(long session) throws IOException {
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(proc, "[0-9]*")) {
            for (Path process : processes) {
                long other;
                try {
                    other = Long.parseLong(process.getFileName().toString());
                } catch (NumberFormatException e) {
                    continue;
                }
                if (other != pid && session(other) == session) {
                    return other;
                }
            }
        }
        return -1;
    }

    /** The session of {@code process}, or -1 where it is gone (it may end between the listing and the read). */
    private long session(long process) {
        try {
            return sessionOf(process);
        } catch (IOException e) {
            return -1;
        }
    }

    /** The session of {@code process}, from {@code /proc/PID/stat}. */
    private long sessionOf(long process) throws IOException {
        String stat = Files.readString(proc.resolve(Long.toString(process)).resolve("stat"));
        // The command name may hold spaces and parentheses; the fields start after its last ')'.
        int end = stat.lastIndexOf(')');
        String[] fields = end < 0 || end + 2 > stat.length() ? new String[0] : stat.substring(end + 2).split(" ");
        if (fields.length <= SESSION_FIELD) {
            throw new IOException("unexpected /proc/" + process + "/stat: " + stat.strip());
        }
        try {
            return Long.parseLong(fields[SESSION_FIELD]);
        } catch (NumberFormatException e) {
            throw new IOException("unexpected /proc/" + process + "/stat: " + stat.strip(), e);
        }
    }
}
