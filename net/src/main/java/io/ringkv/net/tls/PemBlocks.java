package io.ringkv.net.tls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Splits a PEM file (RFC 7468) into its labelled blocks: the text between
 * {@code -----BEGIN LABEL-----} and {@code -----END LABEL-----}, base64-decoded. Text outside
 * the blocks (openssl's "Bag Attributes", comments) is ignored, as RFC 7468 §2 allows. Stateless.
 */
final class PemBlocks {
    /** Bounds what is read into memory: certificate chains and keys are a few KiB. */
    static final long FILE_BYTES_MAX = 1L << 20;

    /** One block: its label ({@code CERTIFICATE}, {@code PRIVATE KEY}, ...) and DER content. */
    record Block(String label, byte[] der) {
    }

    private PemBlocks() {
    }

    static List<Block> read(Path file) throws PemFileException {
        String text;
        try {
            long size = Files.size(file);
            if (size > FILE_BYTES_MAX) {
                throw new PemFileException(file, "is " + size + " bytes; a PEM certificate or key file is far smaller");
            }
            text = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new PemFileException(file, "cannot read it (" + e + ")", e);
        }
        return parse(file, text);
    }

    static List<Block> parse(Path file, String text) throws PemFileException {
        List<Block> blocks = new ArrayList<>();
        int at = 0;
        while (true) {
            int begin = text.indexOf("-----BEGIN ", at);
            if (begin < 0) {
                return blocks;
            }
            int labelEnd = text.indexOf("-----", begin + 11);
            if (labelEnd < 0) {
                throw new PemFileException(file, "a BEGIN line is not closed by '-----'");
            }
            String label = text.substring(begin + 11, labelEnd);
            String endLine = "-----END " + label + "-----";
            int end = text.indexOf(endLine, labelEnd + 5);
            if (end < 0) {
                throw new PemFileException(file, "'-----BEGIN " + label + "-----' has no matching '" + endLine + "'");
            }
            String body = text.substring(labelEnd + 5, end);
            if (body.contains(":")) {
                // RFC 1421 headers ("Proc-Type: 4,ENCRYPTED"): an encrypted traditional key.
                throw new PemFileException(file, "the " + label + " block is encrypted; write it unencrypted with "
                        + "'openssl pkcs8 -topk8 -nocrypt -in " + file.getFileName() + " -out key.pem'");
            }
            try {
                blocks.add(new Block(label, Base64.getMimeDecoder().decode(body)));
            } catch (IllegalArgumentException e) {
                throw new PemFileException(file, "the " + label + " block is not valid base64 (" + e.getMessage() + ")", e);
            }
            at = end + endLine.length();
        }
    }
}
