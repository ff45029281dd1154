package io.ringkv.http.hpack;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;

/**
 * Encodes header lists into header blocks, RFC 7541 §6.
 *
 * <p>Per field: a full match in the static or dynamic table becomes an index (§6.1); otherwise
 * a literal, naming the field by index when the name is known. Sensitive fields (the field's
 * own flag, or a name in {@link Config#sensitiveNames()}) are never-indexed literals (§6.2.3)
 * and are never looked up by value, so their values neither enter nor probe the table (§7.1).
 * Names in {@link Config#unindexedNames()} and fields too big to be worth a table slot go
 * without indexing (§6.2.2); everything else is added to the table (§6.2.1), unless its name
 * has shown that its values do not repeat ({@link NameUses}). A string literal is Huffman-coded
 * as the {@link HuffmanMode} says, by default when that is shorter (§5.2).
 *
 * <p>The table's capacity follows the peer's SETTINGS_HEADER_TABLE_SIZE, capped by our
 * configured capacity; a change is signalled at the start of the next block (§4.2, §6.3).
 *
 * <p>Encoding allocates nothing once the encoder's tables have grown to the connection's
 * traffic: octets go straight into the output's backing array (or into a scratch array the
 * encoder keeps, for a direct buffer or {@link #encodeReused}), names are classified with one
 * lookup ({@link KnownNames}) and the dynamic table is searched through hash chains ({@link
 * EncoderTable}).
 *
 * <p>Threading: not thread-safe, and it holds mutable scratch state between calls. One encoder
 * belongs to one connection; HTTP/2 needs header blocks to leave in the order they were
 * encoded, so the connection calls this inside its one critical section that also allocates
 * the stream id and enqueues the frames.
 */
public final class HpackEncoder {
    /** When to Huffman-code string literals. */
    public enum HuffmanMode { ALWAYS, NEVER, WHEN_SHORTER }

    /**
     * @param tableCapacity   initial and maximum dynamic table capacity (HTTP/2 starts at 4096)
     * @param sensitiveNames  lowercase names always sent as never-indexed literals
     * @param unindexedNames  lowercase names sent without indexing (values that rarely repeat)
     */
    public record Config(int tableCapacity, HuffmanMode huffman, Set<String> sensitiveNames,
                         Set<String> unindexedNames) {
        public static final Set<String> DEFAULT_SENSITIVE =
                Set.of("authorization", "proxy-authorization", "cookie", "set-cookie");
        public static final Set<String> DEFAULT_UNINDEXED = Set.of(":path", "content-length", "content-range",
                "date", "etag", "if-modified-since", "if-unmodified-since", "if-none-match", "if-range",
                "if-match", "last-modified", "location", "range", "age", "expires", "retry-after");

        public Config {
            sensitiveNames = Set.copyOf(sensitiveNames);
            unindexedNames = Set.copyOf(unindexedNames);
        }

        private static final Config DEFAULTS = new Config(HpackDecoder.DEFAULT_TABLE_CAPACITY,
                HuffmanMode.WHEN_SHORTER, DEFAULT_SENSITIVE, DEFAULT_UNINDEXED);

        /** The defaults; one shared instance (a record of immutable sets). */
        public static Config defaults() {
            return DEFAULTS;
        }
    }

    /** Worst-case octets per field beyond its characters: two 5-octet lengths and a prefix. */
    private static final int FIELD_OVERHEAD_MAX = 11;
    private static final byte[] NO_OCTETS = {};

    /** Built once for the default names; other configurations build their own. */
    private static final KnownNames DEFAULT_NAMES =
            new KnownNames(Config.DEFAULT_SENSITIVE, Config.DEFAULT_UNINDEXED);

    private final HuffmanMode huffman;
    /** Our configured capacity: the peer's setting can lower the table's, not raise it. */
    private final int maxCapacity;
    private final KnownNames names;
    private final EncoderTable table;
    private final NameUses uses = new NameUses();
    private int pendingMinCapacity = -1;
    private int pendingCapacity = -1;
    /**
     * Output for direct buffers and {@link #encodeReused}, made on first use (an encoder that
     * only writes into heap buffers never needs it); grows to the largest list seen.
     */
    private byte[] scratch = NO_OCTETS;
    private ByteBuffer scratchView;

    public HpackEncoder() {
        this(Config.defaults());
    }

    public HpackEncoder(Config config) {
        this.huffman = config.huffman();
        this.names = config.sensitiveNames().equals(Config.DEFAULT_SENSITIVE)
                && config.unindexedNames().equals(Config.DEFAULT_UNINDEXED)
                ? DEFAULT_NAMES : new KnownNames(config.sensitiveNames(), config.unindexedNames());
        this.table = new EncoderTable(config.tableCapacity());
        this.maxCapacity = config.tableCapacity();
    }

    /** The peer's SETTINGS_HEADER_TABLE_SIZE changed; takes effect at the next block. */
    public void maxTableCapacity(int peerBytes) {
        int capacity = Math.min(peerBytes, maxCapacity);
        if (capacity == table.capacity() && pendingCapacity < 0) {
            return;
        }
        pendingMinCapacity = pendingMinCapacity < 0 ? capacity : Math.min(pendingMinCapacity, capacity);
        pendingCapacity = capacity;
    }

    public int tableSize() {
        return table.size();
    }

    /** An upper bound on the octets {@link #encode(List, ByteBuffer)} can write for these fields. */
    public static int maxEncodedLength(List<HeaderField> fields) {
        int total = 2 * 6; // two table size updates
        for (int i = 0; i < fields.size(); i++) {
            HeaderField field = fields.get(i);
            // Huffman codes are at most 30 bits per octet: 4 octets per char bounds both ways, and
            // leaves room for the few octets a Huffman attempt writes past a string it sends raw.
            total += FIELD_OVERHEAD_MAX + 4 * (field.name().length() + field.value().length());
        }
        return total;
    }

    /** Encodes a header list into a new buffer of exactly the block's size. */
    public ByteBuffer encode(List<HeaderField> fields) {
        ByteBuffer block = encodeReused(fields);
        return ByteBuffer.allocate(block.remaining()).put(block).flip();
    }

    /**
     * Encodes a header list into a buffer the encoder owns and returns it, ready to read. The
     * buffer is overwritten by the next call: for a caller that copies the block at once (the
     * HTTP/2 frame generator does), this saves a buffer per block.
     */
    public ByteBuffer encodeReused(List<HeaderField> fields) {
        byte[] out = scratch(maxEncodedLength(fields));
        int end = encode(fields, out, 0);
        return scratchView.clear().limit(end);
    }

    /**
     * Encodes a header list into {@code out}, which must have {@link #maxEncodedLength}
     * octets free (checked before any state changes).
     */
    public void encode(List<HeaderField> fields, ByteBuffer out) {
        int needed = maxEncodedLength(fields);
        if (out.remaining() < needed) {
            throw new IllegalArgumentException("output buffer too small for the header list");
        }
        if (out.hasArray()) {
            int start = out.arrayOffset() + out.position();
            int end = encode(fields, out.array(), start);
            out.position(out.position() + (end - start));
        } else {
            byte[] buffer = scratch(needed);
            out.put(buffer, 0, encode(fields, buffer, 0));
        }
    }

    private byte[] scratch(int needed) {
        if (scratch.length < needed) {
            scratch = new byte[Math.max(needed, scratch.length * 2)];
            scratchView = ByteBuffer.wrap(scratch);
        }
        return scratch;
    }

    /** Writes the block at {@code out[at]}, which has room for it; returns the index after it. */
    private int encode(List<HeaderField> fields, byte[] out, int at) {
        at = writeSizeUpdates(out, at);
        for (int i = 0; i < fields.size(); i++) {
            at = encodeField(fields.get(i), out, at);
        }
        return at;
    }

    private int writeSizeUpdates(byte[] out, int at) {
        if (pendingCapacity < 0) {
            return at;
        }
        // RFC 7541 §4.2: signal the smallest size reached since the last block, then the final one.
        if (pendingMinCapacity < pendingCapacity) {
            table.capacity(pendingMinCapacity);
            at = HpackInteger.encode(out, at, 0x20, 5, pendingMinCapacity);
        }
        table.capacity(pendingCapacity);
        at = HpackInteger.encode(out, at, 0x20, 5, pendingCapacity);
        pendingCapacity = -1;
        pendingMinCapacity = -1;
        return at;
    }

    private int encodeField(HeaderField field, byte[] out, int at) {
        String name = field.name();
        String value = field.value();
        int known = names.of(name);
        boolean sensitive = field.sensitive() || (known & KnownNames.SENSITIVE) != 0;
        if (!sensitive) {
            int index = KnownNames.index(known, value);
            if (index == 0) {
                int dynamic = table.indexOf(name, value);
                if (dynamic > 0) {
                    uses.hit(table.useId(dynamic));
                    index = StaticTable.LENGTH + dynamic;
                }
            }
            if (index > 0) {
                return HpackInteger.encode(out, at, 0x80, 7, index);
            }
        }
        int nameIndex = KnownNames.nameIndex(known);
        if (nameIndex == 0) {
            int dynamic = table.indexOfName(name);
            nameIndex = dynamic == 0 ? 0 : StaticTable.LENGTH + dynamic;
        }
        if (sensitive) {
            return literal(out, at, 0x10, 4, nameIndex, field);
        }
        if ((known & KnownNames.UNINDEXED) != 0 || field.size() > table.capacity() * 3 / 4) {
            return literal(out, at, 0x00, 4, nameIndex, field);
        }
        int useId = uses.idOf(name);
        if (!uses.worthIndexing(useId)) {
            return literal(out, at, 0x00, 4, nameIndex, field);
        }
        at = literal(out, at, 0x40, 6, nameIndex, field);
        table.add(field, useId);
        return at;
    }

    private int literal(byte[] out, int at, int firstBits, int prefixBits, int nameIndex, HeaderField field) {
        at = HpackInteger.encode(out, at, firstBits, prefixBits, nameIndex);
        if (nameIndex == 0) {
            at = string(out, at, field.name());
        }
        return string(out, at, field.value());
    }

    /** RFC 7541 §5.2. */
    private int string(byte[] out, int at, String text) {
        int length = text.length();
        if (huffman == HuffmanMode.WHEN_SHORTER && length > 1) {
            int coded = huffmanIfShorter(out, at, text);
            if (coded > 0) {
                return coded;
            }
        } else if (huffman == HuffmanMode.ALWAYS) {
            at = HpackInteger.encode(out, at, 0x80, 7, Huffman.encodedLength(text));
            return Huffman.encode(text, out, at);
        }
        at = HpackInteger.encode(out, at, 0x00, 7, length);
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (c > 0xff) {
                throw new IllegalArgumentException("header text must be ISO-8859-1 octets");
            }
            out[at++] = (byte) c;
        }
        return at;
    }

    /**
     * Huffman-codes {@code text} behind room for the length a raw literal of it would need,
     * giving up once the code is not shorter than the text: one pass decides and writes. Returns
     * the index after the string, or 0 if it must go raw (whatever was written is overwritten).
     */
    private static int huffmanIfShorter(byte[] out, int at, String text) {
        int length = text.length();
        int reserved = HpackInteger.encodedLength(7, length);
        int end = Huffman.encode(text, out, at + reserved, length - 1);
        if (end < 0) {
            return 0;
        }
        int coded = end - (at + reserved);
        int prefix = HpackInteger.encodedLength(7, coded);
        if (prefix < reserved) {
            // A code of 127+ octets shrank below 127 (a text of 127 to ~200 octets): close the gap.
            System.arraycopy(out, at + reserved, out, at + prefix, coded);
        }
        HpackInteger.encode(out, at, 0x80, 7, coded);
        return at + prefix + coded;
    }
}
