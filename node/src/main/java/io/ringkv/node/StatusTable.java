package io.ringkv.node;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The table {@code ringkv status} prints: one row per node from two {@link NodeSample}s of it,
 * the request rate and p99 of the data operations between them.
 *
 * <p>Threading: confined to the command's thread.
 */
final class StatusTable {

    private static final Set<String> DATA_OPERATIONS = Set.of("get", "put", "delete", "range");
    private static final String[] HEADER = {"NODE", "STATE", "SEEN BY NODE", "UPTIME", "REQ/S", "P99", "DISK"};

    private final List<String[]> rows = new ArrayList<>();

    void row(NodeSample now, NodeSample before, String seen) {
        String rate = "-";
        String p99 = "-";
        String disk = "-";
        if (now.metrics() != null && before.metrics() != null && now.atNanos() > before.atNanos()) {
            double seconds = (now.atNanos() - before.atNanos()) / 1e9;
            double requests = dataRequests(now.metrics()) - dataRequests(before.metrics());
            rate = String.format(Locale.ROOT, "%.1f", Math.max(0, requests) / seconds);
            p99 = p99(now.metrics(), before.metrics());
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

    private static double dataRequests(PrometheusText metrics) {
        return metrics.sum("ringkv_requests_total", s -> DATA_OPERATIONS.contains(s.label("operation")));
    }

    /** The upper bound of the bucket holding the 99th percentile of the requests between the samples. */
    private static String p99(PrometheusText now, PrometheusText before) {
        java.util.TreeMap<Double, Double> counts = new java.util.TreeMap<>();
        add(counts, now, 1);
        add(counts, before, -1);
        double total = counts.isEmpty() ? 0 : counts.lastEntry().getValue();
        if (total <= 0) {
            return "-";
        }
        for (var bucket : counts.entrySet()) {
            if (bucket.getValue() >= 0.99 * total) {
                double le = bucket.getKey();
                return Double.isInfinite(le) ? ">" + millis(counts.lowerKey(le)) : "<=" + millis(le);
            }
        }
        return "-";
    }

    private static void add(java.util.TreeMap<Double, Double> counts, PrometheusText metrics, int sign) {
        for (PrometheusText.Sample sample : metrics.samples()) {
            if (sample.name().equals("ringkv_request_duration_seconds_bucket")
                    && DATA_OPERATIONS.contains(sample.label("operation"))) {
                double le = sample.label("le").equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(sample.label("le"));
                counts.merge(le, sign * sample.value(), Double::sum);
            }
        }
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
