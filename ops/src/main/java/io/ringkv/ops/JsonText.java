package io.ringkv.ops;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The little JSON the node writes and its commands read back: string literals with their escapes,
 * and reading one top-level string, number or string-array field out of a flat object we wrote
 * ourselves ({@code /v0/status}). Not a general parser: it finds the first field of that name.
 */
public final class JsonText {
    private JsonText() {
    }

    /** {@code text} as a JSON string literal, quotes included; null as {@code null}. */
    public static String string(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    /** The value of the first string field {@code name}, unescaped; empty when absent or null. */
    public static Optional<String> stringField(String json, String name) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(json);
        return m.find() ? Optional.of(unescape(m.group(1))) : Optional.empty();
    }

    /**
     * The strings of the first field {@code name} that holds an array of strings, unescaped; empty
     * when there is no such field (an array of anything else counts as absent).
     */
    public static Optional<List<String>> stringArrayField(String json, String name) {
        String string = "\"(?:[^\"\\\\]|\\\\.)*\"";
        Matcher array = Pattern.compile("\"" + Pattern.quote(name) + "\"\\s*:\\s*\\[\\s*((?:" + string
                + "\\s*,?\\s*)*)]").matcher(json);
        if (!array.find()) {
            return Optional.empty();
        }
        List<String> values = new ArrayList<>();
        Matcher item = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(array.group(1));
        while (item.find()) {
            values.add(unescape(item.group(1)));
        }
        return Optional.of(values);
    }

    /** The value of the first number field {@code name}; empty when absent or not a number. */
    public static Optional<Double> numberField(String json, String name) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\"\\s*:\\s*(-?[0-9][0-9.eE+-]*)").matcher(json);
        if (!m.find()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Double.parseDouble(m.group(1)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * The text a JSON string literal stands for, given what is between its quotes.
     *
     * @throws NumberFormatException for a backslash-u escape not followed by four hex digits
     */
    public static String unescape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 == s.length()) {
                out.append(c);
                continue;
            }
            char e = s.charAt(++i);
            switch (e) {
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'u' -> {
                    if (i + 4 < s.length()) {
                        out.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
                        i += 4;
                    }
                }
                default -> out.append(e); // \" \\ \/
            }
        }
        return out.toString();
    }
}
