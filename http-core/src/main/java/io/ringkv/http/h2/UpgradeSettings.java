package io.ringkv.http.h2;

import java.nio.ByteBuffer;
import java.util.Base64;

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
}
