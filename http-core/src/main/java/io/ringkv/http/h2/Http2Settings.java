package io.ringkv.http.h2;

import java.util.ArrayList;
import java.util.List;

/**
 * One endpoint's SETTINGS values, RFC 9113 §6.5.2. Immutable; {@link #apply} yields the next value.
 * Unlimited values ({@code maxConcurrentStreams}, {@code maxHeaderListBytes}) are Long.MAX_VALUE.
 */
public record Http2Settings(int headerTableSize, boolean enablePush, long maxConcurrentStreams,
                            int initialWindowSize, int maxFrameSize, long maxHeaderListBytes) {
    /** The values every connection starts from, before any SETTINGS frame. */
    public static final Http2Settings PROTOCOL_DEFAULTS =
            new Http2Settings(4096, true, Long.MAX_VALUE, 65_535, 16_384, Long.MAX_VALUE);

    /**
     * Our defaults: no push, 100 concurrent streams, 1 MiB stream windows for fast links,
     * 64 KiB of headers.
     */
    public static Http2Settings localDefaults() {
        return new Http2Settings(4096, false, 100, 1 << 20, 16_384, 64 * 1024);
    }

    /** The values after a (validated) SETTINGS frame; unknown identifiers are ignored. */
    public Http2Settings apply(List<SettingsFrame.Setting> settings) {
        Http2Settings s = this;
        for (SettingsFrame.Setting setting : settings) {
            long v = setting.value();
            s = switch (setting.id()) {
                case SettingId.HEADER_TABLE_SIZE -> new Http2Settings((int) Math.min(v, Integer.MAX_VALUE),
                        s.enablePush, s.maxConcurrentStreams, s.initialWindowSize, s.maxFrameSize, s.maxHeaderListBytes);
                case SettingId.ENABLE_PUSH -> new Http2Settings(s.headerTableSize, v == 1, s.maxConcurrentStreams,
                        s.initialWindowSize, s.maxFrameSize, s.maxHeaderListBytes);
                case SettingId.MAX_CONCURRENT_STREAMS -> new Http2Settings(s.headerTableSize, s.enablePush, v,
                        s.initialWindowSize, s.maxFrameSize, s.maxHeaderListBytes);
                case SettingId.INITIAL_WINDOW_SIZE -> new Http2Settings(s.headerTableSize, s.enablePush,
                        s.maxConcurrentStreams, (int) v, s.maxFrameSize, s.maxHeaderListBytes);
                case SettingId.MAX_FRAME_SIZE -> new Http2Settings(s.headerTableSize, s.enablePush,
                        s.maxConcurrentStreams, s.initialWindowSize, (int) v, s.maxHeaderListBytes);
                case SettingId.MAX_HEADER_LIST_SIZE -> new Http2Settings(s.headerTableSize, s.enablePush,
                        s.maxConcurrentStreams, s.initialWindowSize, s.maxFrameSize, v);
                default -> s;
            };
        }
        return s;
    }

    /** The parameters that differ from the protocol defaults, for our initial SETTINGS frame. */
    public List<SettingsFrame.Setting> differencesFromDefaults() {
        Http2Settings d = PROTOCOL_DEFAULTS;
        List<SettingsFrame.Setting> out = new ArrayList<>();
        addIf(out, headerTableSize != d.headerTableSize, SettingId.HEADER_TABLE_SIZE, headerTableSize);
        addIf(out, enablePush != d.enablePush, SettingId.ENABLE_PUSH, enablePush ? 1 : 0);
        addIf(out, maxConcurrentStreams != d.maxConcurrentStreams, SettingId.MAX_CONCURRENT_STREAMS, maxConcurrentStreams);
        addIf(out, initialWindowSize != d.initialWindowSize, SettingId.INITIAL_WINDOW_SIZE, initialWindowSize);
        addIf(out, maxFrameSize != d.maxFrameSize, SettingId.MAX_FRAME_SIZE, maxFrameSize);
        addIf(out, maxHeaderListBytes != d.maxHeaderListBytes, SettingId.MAX_HEADER_LIST_SIZE, maxHeaderListBytes);
        return out;
    }

    private static void addIf(List<SettingsFrame.Setting> out, boolean differs, int id, long value) {
        if (differs) {
            out.add(new SettingsFrame.Setting(id, Math.min(value, 0xffffffffL)));
        }
    }
}
