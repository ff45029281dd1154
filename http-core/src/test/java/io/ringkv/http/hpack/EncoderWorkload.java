package io.ringkv.http.hpack;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * A seeded stream of header lists that exercises every encoder decision, and the SHA-256 of
 * the blocks an encoder makes of it. {@code EncoderOutputTest} pins the digest so that a change
 * to how the encoder works cannot change a single octet of what it emits.
 *
 * <p>Only public API and no test library, so the same file can be compiled against another
 * revision of the encoder to produce the digest being pinned.
 */
final class EncoderWorkload {
    static final int LISTS = 3_000;
    private static final String[] NAMES = {"accept", "accept-encoding", "accept-language", "cache-control",
        "content-type", "cookie", "user-agent", "authorization", "if-none-match", "referer", "x-request-id",
        "x-forwarded-for", "etag", "vary", ":method", ":path", ":status", ":authority", "x-secret"};
    private static final int[] CAPACITIES = {4096, 0, 1000, 4096, 300, 2000};

    private EncoderWorkload() {
    }

    /** The configurations the workload runs under: defaults, a small table, ALWAYS and NEVER. */
    static List<HpackEncoder.Config> configs() {
        return List.of(HpackEncoder.Config.defaults(),
                new HpackEncoder.Config(256, HpackEncoder.HuffmanMode.WHEN_SHORTER,
                        HpackEncoder.Config.DEFAULT_SENSITIVE, HpackEncoder.Config.DEFAULT_UNINDEXED),
                new HpackEncoder.Config(4096, HpackEncoder.HuffmanMode.ALWAYS, Set.of("x-secret"), Set.of()),
                new HpackEncoder.Config(8192, HpackEncoder.HuffmanMode.NEVER, Set.of(), Set.of("x-request-id")));
    }

    /** Hex SHA-256 over every block and table size the encoder produces for the workload. */
    static String digest(HpackEncoder.Config config) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
        Random random = new Random(0x7541);
        HpackEncoder encoder = new HpackEncoder(config);
        for (int i = 0; i < LISTS; i++) {
            if (i % 250 == 249) {
                encoder.maxTableCapacity(CAPACITIES[random.nextInt(CAPACITIES.length)]);
            }
            ByteBuffer block = encoder.encode(list(random));
            sha.update(block);
            sha.update(ByteBuffer.allocate(4).putInt(0, encoder.tableSize()));
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /**
     * 1..24 fields: common names with values that repeat, values that never repeat (so names
     * get probed and stop being indexed), hundreds of distinct names (past the tracked-name
     * cap), long values (multi-octet lengths), sensitive-flagged fields, empty values, and
     * octets above 0x7f.
     */
    static List<HeaderField> list(Random random) {
        int count = 1 + random.nextInt(24);
        List<HeaderField> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String name = switch (random.nextInt(6)) {
                case 0 -> "x-n" + random.nextInt(400);
                case 1 -> "x-sig";
                default -> NAMES[random.nextInt(NAMES.length)];
            };
            String value = switch (random.nextInt(8)) {
                case 0 -> Long.toHexString(random.nextLong());
                case 1 -> text(random, 120 + random.nextInt(200));
                case 2 -> "";
                case 3 -> "\u00e9t\u00e9-" + random.nextInt(5);
                default -> name.equals("x-sig") ? Long.toHexString(random.nextLong()) : "v" + random.nextInt(6);
            };
            list.add(new HeaderField(name, value, random.nextInt(20) == 0));
        }
        return list;
    }

    private static String text(Random random, int length) {
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append((char) (0x20 + random.nextInt(95)));
        }
        return text.toString();
    }
}
