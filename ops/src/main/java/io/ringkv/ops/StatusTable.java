package io.ringkv.ops;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The table {@code ringkv status} prints: one row per node from two {@link NodeSample}s of it,
 * the request rate and p99 of the data operations between them ({@link RequestRates}).
 *
 * <p>Threading: confined to the command's thread.
 */
final class StatusTable {

    private static final String[] HEADER = {"NODE", "STATE", "SEEN BY NODE", "UPTIME", "REQ/S", "P99", "DISK"};

    private final List<String[]> rows = new ArrayList<>();

    void row(NodeSample now, NodeSample before, String seen) {
        String rate = "-";
        String p99 = "-";
        String disk = "-";
        Optional<RequestRates> between = RequestRates.between(before, now);
        if (between.isPresent()) {
            rate = String.format(Locale.ROOT, "%.1f", between.get().perSecond());
            p99 = p99(between.get());
        }
        if (now.metrics() != null && now.metrics().has("ringkv_storage_disk_bytes")) {
            disk = bytes((long) now.metrics().sum("ringkv_storage_disk_bytes", s -> true));
        }
        String uptime = now.uptimeSeconds().map(StatusTable::duration).orElse("-");
        rows.add(new String[] {now.url(), now.state(), seen == null ? "?" : seen, uptime, rate, p99, disk});
    }

    void print(PrintWriter out, String seed) {
        out.println("ringkv cluster as " + seed + " sees it:");
        int[] widths = new int[HEADER.length];
        List<String[]> all = new ArrayList<>();
        all.add(HEADER);
        all.addAll(rows);
        for (String[] row : all) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : all) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                line.append(i == 0 ? "" : "  ").append(String.format("%-" + widths[i] + "s", row[i]));
            }
            out.println(line.toString().stripTrailing());
        }
    }

    /** The upper bound of the bucket holding the 99th percentile of the requests between the samples. */
    private static String p99(RequestRates rates) {
        OptionalDouble le = rates.bucketOf(0.99);
        if (le.isEmpty()) {
            return "-";
        }
        if (Double.isInfinite(le.getAsDouble())) {
            OptionalDouble below = rates.boundBelow(le.getAsDouble());
            return ">" + millis(below.isPresent() ? below.getAsDouble() : null);
        }
        return "<=" + millis(le.getAsDouble());
    }

    private static String millis(Double seconds) {
        if (seconds == null) {
            return "0ms";
        }
        double ms = seconds * 1000;
        return (ms < 1 ? String.format(Locale.ROOT, "%.2f", ms) : String.format(Locale.ROOT, "%.0f", ms)) + "ms";
    }

    static String duration(long seconds) {
        if (seconds < 60) {
            return seconds + "s";
        }
        if (seconds < 3600) {
            return seconds / 60 + "m" + String.format("%02ds", seconds % 60);
        }
        if (seconds < 86400) {
            return seconds / 3600 + "h" + String.format("%02dm", seconds / 60 % 60);
        }
        return seconds / 86400 + "d" + String.format("%02dh", seconds / 3600 % 24);
    }

    static String bytes(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return unit == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}
