package io.ringkv.bench.client;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The host's CPU time counters from {@code /proc/stat} (all CPUs, in clock ticks): how much of it
 * the hypervisor gave to other guests ("steal"). On these shared machines a fork whose CPUs were
 * partly stolen runs every thread slower, so a row's ratio can flip for reasons outside the
 * clients; the steal share tells those forks apart.
 *
 * @param stealTicks ticks stolen by the hypervisor
 * @param totalTicks ticks of every kind (user, system, idle, I/O wait, interrupts, steal)
 */
record HostSteal(long stealTicks, long totalTicks) {
    private static final Path PROC_STAT = Path.of("/proc/stat");
    private static final int STEAL_FIELD = 8; // "cpu user nice system idle iowait irq softirq steal"

    /** The counters now, or {@code null} where {@code /proc/stat} is missing or unreadable. */
    static HostSteal now() {
        try {
            for (String line : Files.readAllLines(PROC_STAT)) {
                if (line.startsWith("cpu ")) {
                    return parse(line);
                }
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    static HostSteal parse(String cpuLine) {
        String[] fields = cpuLine.trim().split("\\s+");
        long total = 0;
        // Fields 1..8 add up to the time spent; guest time (9, 10) is already inside user and nice.
        for (int i = 1; i <= Math.min(STEAL_FIELD, fields.length - 1); i++) {
            total += Long.parseLong(fields[i]);
        }
        long steal = fields.length > STEAL_FIELD ? Long.parseLong(fields[STEAL_FIELD]) : 0;
        return new HostSteal(steal, total);
    }

    /** Percent of the CPU time between {@code earlier} and this that was stolen. */
    double stolenPercentSince(HostSteal earlier) {
        long total = totalTicks - earlier.totalTicks;
        return total <= 0 ? 0 : 100.0 * (stealTicks - earlier.stealTicks) / total;
    }
}
