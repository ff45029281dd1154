package io.ringkv.ops;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Reads the samples of a Prometheus text-format exposition (version 0.0.4), as the node's
 * {@code /metrics} writes it: {@code name{label="value",...} value} per line, comments skipped.
 * Enough for {@code ringkv status} to add counters and histogram buckets up, and for the chaos
 * package's measurements to read a few counters; not a validator.
 */
public final class PrometheusText {

    /** One sample line. */
    public record Sample(String name, Map<String, String> labels, double value) {
        public String label(String key) {
            return labels.getOrDefault(key, "");
        }
    }

    private final List<Sample> samples;

    private PrometheusText(List<Sample> samples) {
        this.samples = samples;
    }

    /** Samples read some other way (a node's own registry, in process), for the same readers. */
    public static PrometheusText of(List<Sample> samples) {
        return new PrometheusText(List.copyOf(samples));
    }

    public static PrometheusText parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                Sample sample = parseLine(line.strip());
                if (sample != null) {
                    samples.add(sample);
                }
            }
        }
        return new PrometheusText(samples);
    }

    /** The sum of the samples named {@code name} whose labels pass {@code filter}; 0 for none. */
    public double sum(String name, Predicate<Sample> filter) {
        double total = 0;
        for (Sample sample : samples) {
            if (sample.name().equals(name) && filter.test(sample)) {
                total += sample.value();
            }
        }
        return total;
    }

    /** Whether any sample is named {@code name}. */
    public boolean has(String name) {
        return samples.stream().anyMatch(sample -> sample.name().equals(name));
    }

    public List<Sample> samples() {
        return samples;
    }

    private static Sample parseLine(String line) {
        int brace = line.indexOf('{');
        int space = line.indexOf(' ');
        Map<String, String> labels = new LinkedHashMap<>();
        String name;
        int valueStart;
        if (brace >= 0 && (space < 0 || brace < space)) {
            name = line.substring(0, brace);
            int i = brace + 1;
            while (i < line.length() && line.charAt(i) != '}') {
                int eq = line.indexOf('=', i);
                if (eq < 0 || eq + 1 >= line.length() || line.charAt(eq + 1) != '"') {
                    return null;
                }
                String key = line.substring(i, eq).strip();
                StringBuilder value = new StringBuilder();
                int j = eq + 2;
                for (; j < line.length() && line.charAt(j) != '"'; j++) {
                    char c = line.charAt(j);
                    if (c == '\\' && j + 1 < line.length()) {
                        char e = line.charAt(++j);
                        value.append(e == 'n' ? '\n' : e);
                    } else {
                        value.append(c);
                    }
                }
                labels.put(key, value.toString());
                i = j + 1;
                if (i < line.length() && line.charAt(i) == ',') {
                    i++;
                }
            }
            valueStart = i + 1;
        } else if (space > 0) {
            name = line.substring(0, space);
            valueStart = space;
        } else {
            return null;
        }
        String[] rest = line.substring(Math.min(valueStart, line.length())).strip().split("\\s+");
        try {
            return new Sample(name, labels, parseValue(rest[0]));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static double parseValue(String text) {
        return switch (text) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(text);
        };
    }
}
