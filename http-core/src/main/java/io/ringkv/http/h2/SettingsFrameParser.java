package io.ringkv.http.h2;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Parses and validates a SETTINGS payload, RFC 9113 §6.5. */
final class SettingsFrameParser {
    static final int MAX_WINDOW_SIZE = Integer.MAX_VALUE;
    static final int MIN_MAX_FRAME_SIZE = 16_384;
    static final int MAX_MAX_FRAME_SIZE = 16_777_215;

    private SettingsFrameParser() {
    }

    static SettingsFrame parse(FrameHeader header, ByteBuffer payload) throws ConnectionError {
        if (header.streamId() != 0) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "settings_on_stream");
        }
        if (header.has(Flags.ACK)) {
            if (header.length() != 0) {
                throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "settings_ack_with_payload");
            }
            return SettingsFrame.ACK_FRAME;
        }
        if (header.length() % 6 != 0) {
            throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "settings_bad_length");
        }
        List<SettingsFrame.Setting> settings = new ArrayList<>(header.length() / 6);
        while (payload.hasRemaining()) {
            int id = payload.getShort() & 0xffff;
            long value = payload.getInt() & 0xffffffffL;
            validate(id, value);
            settings.add(new SettingsFrame.Setting(id, value));
        }
        return new SettingsFrame(false, settings);
    }

    static void validate(int id, long value) throws ConnectionError {
        switch (id) {
            case SettingId.ENABLE_PUSH, SettingId.ENABLE_CONNECT_PROTOCOL -> {
                if (value > 1) {
                    throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "settings_bad_boolean");
                }
            }
            // RFC 9113 §6.5.2: above 2^31-1 is a FLOW_CONTROL_ERROR.
            case SettingId.INITIAL_WINDOW_SIZE -> {
                if (value > MAX_WINDOW_SIZE) {
                    throw new ConnectionError(ErrorCode.FLOW_CONTROL_ERROR, "settings_window_too_large");
                }
            }
            case SettingId.MAX_FRAME_SIZE -> {
                if (value < MIN_MAX_FRAME_SIZE || value > MAX_MAX_FRAME_SIZE) {
                    throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "settings_bad_max_frame_size");
                }
            }
            default -> {
                // other values are all legal; unknown identifiers are ignored (§6.5.2)
            }
        }
    }
}
