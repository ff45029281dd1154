package io.ringkv.http.hpack;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * has shown that its values do not repeat: after {@link #PROBE_INSERTIONS} insertions of a name
 * whose entries were reused for fewer than one in eight, its literals go without indexing too,
 * with one insertion in {@link #PROBE_EVERY} kept to notice when its values start repeating. A
 * value that never repeats (a signature, a timestamp, a request id) only evicts entries that
 * would have been reused, and costs the table's bookkeeping on every request.
 *
 * <p>The table's capacity follows the peer's SETTINGS_HEADER_TABLE_SIZE, capped by our
 * configured capacity; a change is signalled at the start of the next block (§4.2, §6.3).
 *
 * <p>Threading: not thread-safe. HTTP/2 needs header blocks to leave in the order they were
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

        public static Config defaults() {
            return new Config(HpackDecoder.DEFAULT_TABLE_CAPACITY, HuffmanMode.WHEN_SHORTER, DEFAULT_SENSITIVE,
                    DEFAULT_UNINDEXED);
        }
    }

    /** Insertions of a name before its reuse rate decides whether it stays indexed. */
    static final int PROBE_INSERTIONS = 16;
    /** While a name goes unindexed, one of this many of its literals is still inserted. */
    static final int PROBE_EVERY = 64;
    /** Counts are halved at this many insertions, so the rate follows recent traffic. */
    private static final int DECAY_AT = 1024;
    private static final int NAMES_TRACKED_MAX = 256;

    /** Worst-case octets per field beyond its characters: two 5-octet lengths and a prefix. */
    private static final int FIELD_OVERHEAD_MAX = 11;

    private final Config config;
    private final DynamicTable table;
    /** name -> value -> insertion number of the newest entry with that pair. */
    private final Map<String, Map<String, Long>> byNameValue = new HashMap<>();
    /** name -> insertion number of the newest entry with that name. */
    private final Map<String, Long> byName = new HashMap<>();
    /** name -> how its literals fared in the table; at most {@link #NAMES_TRACKED_MAX} names. */
    private final Map<String, NameUse> uses = new HashMap<>();
    private int pendingMinCapacity = -1;
    private int pendingCapacity = -1;
    /** Reused between calls (the encoder is single-threaded); grows to the largest list seen. */
    private ByteBuffer scratch = ByteBuffer.allocate(1024);

    public HpackEncoder() {
        this(Config.defaults());
    }

    public HpackEncoder(Config config) {
        this.config = config;
        this.table = new DynamicTable(config.tableCapacity(), this::forget);
    }

    /** The peer's SETTINGS_HEADER_TABLE_SIZE changed; takes effect at the next block. */
    public void maxTableCapacity(int peerBytes) {
        int capacity = Math.min(peerBytes, config.tableCapacity());
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
        for (HeaderField field : fields) {
            // Huffman codes are at most 30 bits per octet: 4 octets per char bounds both ways.
            total += FIELD_OVERHEAD_MAX + 4 * (field.name().length() + field.value().length());
        }
        return total;
    }

    /** Encodes a header list into a new buffer of exactly the block's size. */
    public ByteBuffer encode(List<HeaderField> fields) {
        int needed = maxEncodedLength(fields);
        if (scratch.capacity() < needed) {
            scratch = ByteBuffer.allocate(Math.max(needed, scratch.capacity() * 2));
        }
        scratch.clear();
        encode(fields, scratch);
        scratch.flip();
        ByteBuffer exact = ByteBuffer.allocate(scratch.remaining());
        return exact.put(scratch).flip();
    }

    /**
     * Encodes a header list into {@code out}, which must have {@link #maxEncodedLength}
     * octets free (checked before any state changes).
     */
    public void encode(List<HeaderField> fields, ByteBuffer out) {
        if (out.remaining() < maxEncodedLength(fields)) {
            throw new IllegalArgumentException("output buffer too small for the header list");
        }
        writeSizeUpdates(out);
        for (int i = 0; i < fields.size(); i++) {
            encodeField(fields.get(i), out);
        }
    }

    private void writeSizeUpdates(ByteBuffer out) {
        if (pendingCapacity < 0) {
            return;
        }
        // RFC 7541 §4.2: signal the smallest size reached since the last block, then the final one.
        if (pendingMinCapacity < pendingCapacity) {
            table.capacity(pendingMinCapacity);
            HpackInteger.encode(out, 0x20, 5, pendingMinCapacity);
        }
        table.capacity(pendingCapacity);
        HpackInteger.encode(out, 0x20, 5, pendingCapacity);
        pendingCapacity = -1;
        pendingMinCapacity = -1;
    }

    private void encodeField(HeaderField field, ByteBuffer out) {
        String name = field.name();
        String value = field.value();
        boolean sensitive = field.sensitive() || config.sensitiveNames().contains(name);
        if (!sensitive) {
            int index = indexOf(name, value);
            if (index > 0) {
                if (index > StaticTable.LENGTH) {
                    NameUse use = uses.get(name);
                    if (use != null) {
                        use.reused++;
                    }
                }
                HpackInteger.encode(out, 0x80, 7, index);
                return;
            }
        }
        int nameIndex = indexOfName(name);
        if (sensitive) {
            literal(out, 0x10, 4, nameIndex, field);
        } else if (config.unindexedNames().contains(name) || field.size() > table.capacity() * 3 / 4
                || !worthIndexing(name)) {
            literal(out, 0x00, 4, nameIndex, field);
        } else {
            literal(out, 0x40, 6, nameIndex, field);
            remember(field);
        }
    }

    /** Counts a literal of {@code name} about to be sent; whether it should enter the table. */
    private boolean worthIndexing(String name) {
        NameUse use = uses.get(name);
        if (use == null) {
            if (uses.size() >= NAMES_TRACKED_MAX) {
                return true;
            }
            use = new NameUse();
            uses.put(name, use);
        }
        if (++use.inserted >= DECAY_AT) {
            use.inserted /= 2;
            use.reused /= 2;
        }
        boolean rarelyReused = use.inserted > PROBE_INSERTIONS && use.reused * 8 < use.inserted;
        return !rarelyReused || use.inserted % PROBE_EVERY == 0;
    }

    /** Literals of one name that went out (each a candidate for the table), and table hits on it. */
    private static final class NameUse {
        int inserted;
        int reused;
    }

    private void literal(ByteBuffer out, int firstBits, int prefixBits, int nameIndex, HeaderField field) {
        HpackInteger.encode(out, firstBits, prefixBits, nameIndex);
        if (nameIndex == 0) {
            string(out, field.name());
        }
        string(out, field.value());
    }

    /** RFC 7541 §5.2. */
    private void string(ByteBuffer out, String text) {
        int huffmanLength = config.huffman() == HuffmanMode.NEVER ? -1 : Huffman.encodedLength(text);
        boolean huffman = switch (config.huffman()) {
            case ALWAYS -> true;
            case NEVER -> false;
            case WHEN_SHORTER -> huffmanLength < text.length();
        };
        if (huffman) {
            HpackInteger.encode(out, 0x80, 7, huffmanLength);
            Huffman.encode(text, out);
            return;
        }
        HpackInteger.encode(out, 0x00, 7, text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c > 0xff) {
                throw new IllegalArgumentException("header text must be ISO-8859-1 octets");
            }
            out.put((byte) c);
        }
    }

    private int indexOf(String name, String value) {
        int index = StaticTable.indexOf(name, value);
        if (index > 0) {
            return index;
        }
        Map<String, Long> values = byNameValue.get(name);
        Long insertion = values == null ? null : values.get(value);
        return insertion == null ? 0 : dynamicIndex(insertion);
    }

    private int indexOfName(String name) {
        int index = StaticTable.indexOfName(name);
        if (index > 0) {
            return index;
        }
        Long insertion = byName.get(name);
        return insertion == null ? 0 : dynamicIndex(insertion);
    }

    private int dynamicIndex(long insertion) {
        int index = table.indexOfInsertion(insertion);
        return index == 0 ? 0 : StaticTable.LENGTH + index;
    }

    private void remember(HeaderField field) {
        long insertion = table.inserted();
        table.add(field);
        if (table.indexOfInsertion(insertion) == 0) {
            return; // too big for the table: it was emptied and the field not added
        }
        byNameValue.computeIfAbsent(field.name(), n -> new HashMap<>(4)).put(field.value(), insertion);
        byName.put(field.name(), insertion);
    }

    /** Drops index entries that still point at an evicted insertion. */
    private void forget(HeaderField field, long insertion) {
        Map<String, Long> values = byNameValue.get(field.name());
        if (values != null && values.remove(field.value(), insertion) && values.isEmpty()) {
            byNameValue.remove(field.name());
        }
        byName.remove(field.name(), insertion);
    }
}
