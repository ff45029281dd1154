package io.ringkv.http.hpack;

/**
 * One header field as HPACK sees it (RFC 7541 §1.3). Names and values are octet strings; we
 * carry them as ISO-8859-1 {@link String}s, one char per octet.
 *
 * @param sensitive true if the field must never enter a compression table, here or at any
 *                  intermediary (§6.2.3, §7.1.3); decoded never-indexed literals carry it too
 */
public record HeaderField(String name, String value, boolean sensitive) {
    /** RFC 7541 §4.1: the 32 octets of per-entry overhead. */
    public static final int ENTRY_OVERHEAD = 32;

    public HeaderField(String name, String value) {
        this(name, value, false);
    }

    /** The size of this field in a dynamic table and in a header list (RFC 9113 §6.5.2). */
    public int size() {
        return name.length() + value.length() + ENTRY_OVERHEAD;
    }
}
