package io.ringkv.http.h2;

import java.util.List;

/**
 * SETTINGS, RFC 9113 §6.5. Parameters keep their wire order; unknown identifiers are kept
 * (and ignored by the connection, §6.5.2).
 */
public record SettingsFrame(boolean ack, List<Setting> settings) implements Frame {
    public static final SettingsFrame ACK_FRAME = new SettingsFrame(true, List.of());

    public SettingsFrame {
        settings = List.copyOf(settings);
        if (ack && !settings.isEmpty()) {
            throw new IllegalArgumentException("a SETTINGS ACK carries no parameters");
        }
    }

    @Override
    public FrameType type() {
        return FrameType.SETTINGS;
    }

    @Override
    public int streamId() {
        return 0;
    }

    /** One parameter; {@code value} is an unsigned 32-bit wire value. */
    public record Setting(int id, long value) {
    }
}
