package io.ringkv.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A {@code /proc} tree (and a cgroup v2 mount) as the kernel shows them, for {@link SessionAutogroup}'s tests. */
final class FakeProc {
    final Path proc;
    final Path cgroups;

    FakeProc(Path root) {
        this.proc = root.resolve("proc");
        this.cgroups = root.resolve("sys-fs-cgroup");
    }

    /** {@code kernel.sched_autogroup_enabled}. */
    FakeProc autogroupsEnabled(String value) throws IOException {
        Files.createDirectories(proc.resolve("sys/kernel"));
        Files.writeString(proc.resolve("sys/kernel/sched_autogroup_enabled"), value + "\n");
        return this;
    }

    /** {@code /proc/PID/stat}, and {@code autogroup} when given. */
    FakeProc process(long pid, String command, long parent, long session, String autogroup) throws IOException {
        Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(dir.resolve("stat"), pid + " (" + command + ") S " + parent + " " + session + " " + session
                + " 34816 " + session + " 4194560 1190 0 0 0 10 3 0 0 20 0 1 0 100 0\n");
        if (autogroup != null) {
            Files.writeString(dir.resolve("autogroup"), autogroup);
        }
        return this;
    }

    /** {@code /proc/PID/cgroup}. */
    FakeProc cgroups(long pid, String lines) throws IOException {
        Files.writeString(proc.resolve(pid + "/cgroup"), lines);
        return this;
    }

    /** The root cgroup's {@code cgroup.subtree_control} (version 2). */
    FakeProc subtreeControl(String controllers) throws IOException {
        Files.createDirectories(cgroups);
        Files.writeString(cgroups.resolve("cgroup.subtree_control"), controllers + "\n");
        return this;
    }

    String autogroupFile(long pid) throws IOException {
        return Files.readString(proc.resolve(pid + "/autogroup"));
    }

    SessionAutogroup group(long pid) {
        return new SessionAutogroup(proc, cgroups, pid);
    }
}
