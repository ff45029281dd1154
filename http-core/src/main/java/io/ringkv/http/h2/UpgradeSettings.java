package io.ringkv.http.h2;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.List;

/**
 * The {@code HTTP2-Settings} field of an {@code Upgrade: h2c} request (RFC 7540 §3.2.1): the
 * payload of the SETTINGS frame the client would send, without the frame header, in base64url
 * without padding. The server applies it as the client's first SETTINGS; the client still sends
 * its SETTINGS frame after the preface (the same values, so nothing changes). Pure.
 */
public final class UpgradeSettings {
    /** The field's name. */
    public static final String FIELD = "HTTP2-Settings";

    private UpgradeSettings() {
    }

    /** The field value announcing {@code local}, as {@link Http2Connection#start()} would send them. */
    public static String fieldValue(Http2Settings local) {
        ByteBuffer frame = new FrameGenerator().generate(new SettingsFrame(false, local.differencesFromDefaults()));
        frame.position(FrameHeader.BYTES);
        byte[] payload = new byte[frame.remaining()];
        frame.get(payload);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(payload);
    }

    /**
     * The settings a client announced in its {@code HTTP2-Settings} field, validated as a SETTINGS
     * frame's payload would be (RFC 9113 §6.5.2).
     *
     * @throws IllegalArgumentException when the value is not base64url, not a whole number of
     *                                  6-octet settings, or holds a value SETTINGS may not carry
     */
    public static List<SettingsFrame.Setting> parse(String fieldValue) {
        byte[] payload;
        try {
            // RFC 7540 §3.2.1: base64url, trailing '=' omitted; tolerate padding anyway.
            payload = Base64.getUrlDecoder().decode(fieldValue.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("HTTP2-Settings is not base64url: " + e.getMessage(), e);
        }
        FrameHeader header = new FrameHeader(payload.length, FrameType.SETTINGS.code, 0, 0);
        try {
            return SettingsFrameParser.parse(header, ByteBuffer.wrap(payload)).settings();
        } catch (ConnectionError e) {
            throw new IllegalArgumentException("HTTP2-Settings holds an invalid SETTINGS payload: " + e.reason(), e);
        }
    }
}
