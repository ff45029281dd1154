package io.ringkv.cluster;

import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@link SettledOwnership} in a file of the node's data directory ({@code DATA/meta/settled-ownership}),
 * as text:
 * <pre>
 * ringkv settled ownership 1
 * epoch 12
 * replication-factor 3
 * normal n0c1f4b2a9e77
 * normal ...
 * </pre>
 * each id URL-encoded. Replaced whole ({@link FileReplacement}), so a crash leaves the old state or
 * the new one.
 */
final class SettledOwnershipFile {

    static final String NAME = "settled-ownership";
    private static final String FIRST_LINE = "ringkv settled ownership 1";
    /** Far above any real file (16 members of 1 KiB ids); a larger one is not this file. */
    private static final long BYTES_MAX = 64 * 1024;

    private SettledOwnershipFile() {
    }

    /**
     * The ownership stored in {@code file}; empty when there is no file.
     *
     * @throws IOException when it cannot be read or is not such a file (the caller runs a cleanup then)
     */
    static Optional<SettledOwnership> read(Path file) throws IOException {
        List<String> lines;
        try {
            if (Files.size(file) > BYTES_MAX) {
                throw new IOException(file + " is larger than " + BYTES_MAX + " bytes");
            }
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException absent) {
            return Optional.empty();
        }
        if (lines.size() < 3 || !lines.get(0).equals(FIRST_LINE)) {
            throw new IOException(file + " does not start with \"" + FIRST_LINE + "\" and two fields");
        }
        try {
            long epoch = Long.parseLong(field(lines.get(1), "epoch"));
            int factor = Integer.parseInt(field(lines.get(2), "replication-factor"));
            Set<String> normal = new HashSet<>();
            for (String line : lines.subList(3, lines.size())) {
                String id = URLDecoder.decode(field(line, "normal"), StandardCharsets.UTF_8);
                if (id.isEmpty()) {
                    throw new IllegalArgumentException("an empty member id");
                }
                normal.add(id);
            }
            return Optional.of(new SettledOwnership(epoch, factor, normal));
        } catch (IllegalArgumentException malformed) { // NumberFormatException too
            throw new IOException(file + ": " + malformed.getMessage(), malformed);
        }
    }

    static void write(Path file, SettledOwnership ownership) throws IOException {
        StringBuilder text = new StringBuilder(FIRST_LINE).append('\n')
                .append("epoch ").append(ownership.epoch()).append('\n')
                .append("replication-factor ").append(ownership.replicationFactor()).append('\n');
        ownership.normal().stream().sorted()
                .forEach(id -> text.append("normal ").append(URLEncoder.encode(id, StandardCharsets.UTF_8)).append('\n'));
        FileReplacement.write(file, text.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static String field(String line, String name) {
        if (!line.startsWith(name + " ")) {
            throw new IllegalArgumentException("expected \"" + name + " ...\", got \"" + io.ringkv.http.LogText.escape(line) + "\"");
        }
        return line.substring(name.length() + 1);
    }
}
