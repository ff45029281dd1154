package io.ringkv.net.tls;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.List;

/**
 * Reads an unencrypted RSA or EC private key from a PEM file: PKCS#8 ({@code BEGIN PRIVATE KEY},
 * RFC 5958), or the traditional PKCS#1 ({@code BEGIN RSA PRIVATE KEY}, RFC 8017 A.1.2) and SEC1
 * ({@code BEGIN EC PRIVATE KEY}, RFC 5915) forms, which are wrapped into PKCS#8 here so that the
 * JDK's {@link KeyFactory} reads all three. Stateless.
 */
public final class PemPrivateKey {
    private static final String CONVERT = "convert it with 'openssl pkcs8 -topk8 -nocrypt -in KEY -out key.pem'";
    // DER of the AlgorithmIdentifier pieces (RFC 8017 A.1, RFC 5480 §2.1.1).
    private static final byte[] RSA_ENCRYPTION = {0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01};
    private static final byte[] DER_NULL = {0x05, 0x00};
    private static final byte[] EC_PUBLIC_KEY = {0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01};
    private static final byte[] VERSION_0 = {0x02, 0x01, 0x00};
    private static final int SEQUENCE = 0x30;
    private static final int OCTET_STRING = 0x04;
    private static final int EC_PARAMETERS_TAG = 0xa0;

    private PemPrivateKey() {
    }

    /** @throws PemFileException when the file holds no key of a kind read here, or it does not parse */
    public static PrivateKey read(Path file) throws PemFileException {
        List<PemBlocks.Block> blocks = PemBlocks.read(file);
        for (PemBlocks.Block block : blocks) {
            switch (block.label()) {
                case "PRIVATE KEY" -> {
                    return pkcs8(file, block.der(), "RSA", "EC");
                }
                case "RSA PRIVATE KEY" -> {
                    return pkcs8(file, wrap(sequence(RSA_ENCRYPTION, DER_NULL), block.der()), "RSA");
                }
                case "EC PRIVATE KEY" -> {
                    return pkcs8(file, wrap(sequence(EC_PUBLIC_KEY, sec1Curve(file, block.der())), block.der()), "EC");
                }
                case "ENCRYPTED PRIVATE KEY" -> throw new PemFileException(file, "the private key is encrypted; "
                        + "write it unencrypted with 'openssl pkcs8 -topk8 -nocrypt -in " + file.getFileName() + " -out key.pem'");
                default -> {
                }
            }
        }
        throw new PemFileException(file, "holds no '-----BEGIN PRIVATE KEY-----' block"
                + (blocks.isEmpty() ? " (nor any PEM block)" : " (found: " + blocks.stream().map(PemBlocks.Block::label).toList() + ")")
                + "; an unencrypted PKCS#8 RSA or EC key is expected: " + CONVERT);
    }

    private static PrivateKey pkcs8(Path file, byte[] der, String... algorithms) throws PemFileException {
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : algorithms) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (InvalidKeySpecException e) {
                // not this algorithm: try the next
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("this JDK has no " + algorithm + " key factory", e);
            }
        }
        throw new PemFileException(file, "the private key is neither an RSA nor an EC key the JDK can read; " + CONVERT
                + " (Ed25519 and other key types are not supported)");
    }

    /** PKCS#8 PrivateKeyInfo: version 0, the algorithm, the traditional key as an OCTET STRING. */
    private static byte[] wrap(byte[] algorithm, byte[] traditionalKey) {
        return sequence(VERSION_0, algorithm, tlv(OCTET_STRING, traditionalKey));
    }

    /**
     * The named-curve OID in a SEC1 ECPrivateKey ({@code SEQUENCE { version, privateKey,
     * [0] parameters OPTIONAL, [1] publicKey OPTIONAL }}), as a whole DER element.
     */
    private static byte[] sec1Curve(Path file, byte[] der) throws PemFileException {
        try {
            Der outer = new Der(der, 0);
            if (outer.tag != SEQUENCE) {
                throw new IllegalArgumentException("not a SEQUENCE");
            }
            for (int at = outer.contentStart; at < outer.end; ) {
                Der element = new Der(der, at);
                if (element.tag == EC_PARAMETERS_TAG) {
                    Der curve = new Der(der, element.contentStart);
                    return java.util.Arrays.copyOfRange(der, element.contentStart, curve.end);
                }
                at = element.end;
            }
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            throw new PemFileException(file, "the EC PRIVATE KEY block is not a SEC1 key (" + e.getMessage() + "); " + CONVERT, e);
        }
        throw new PemFileException(file, "the EC PRIVATE KEY block names no curve; " + CONVERT);
    }

    private static byte[] sequence(byte[]... parts) {
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            content.writeBytes(part);
        }
        return tlv(SEQUENCE, content.toByteArray());
    }

    /** A DER element: tag, definite length (short or long form, X.690 §8.1.3), content. */
    private static byte[] tlv(int tag, byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
        out.write(tag);
        int length = content.length;
        if (length < 0x80) {
            out.write(length);
        } else {
            int bytes = (32 - Integer.numberOfLeadingZeros(length) + 7) / 8;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write(length >>> (8 * i));
            }
        }
        out.writeBytes(content);
        return out.toByteArray();
    }

    /** The header of the DER element starting at {@code start}: its tag and where its content starts and ends. */
    private static final class Der {
        final int tag;
        final int contentStart;
        final int end;

        Der(byte[] der, int start) {
            tag = der[start] & 0xff;
            int first = der[start + 1] & 0xff;
            int length;
            int at = start + 2;
            if (first < 0x80) {
                length = first;
            } else {
                int bytes = first & 0x7f;
                if (bytes < 1 || bytes > 3) {
                    throw new IllegalArgumentException("unsupported DER length of " + bytes + " bytes");
                }
                length = 0;
                for (int i = 0; i < bytes; i++) {
                    length = length << 8 | (der[at++] & 0xff);
                }
            }
            contentStart = at;
            end = at + length;
            if (end > der.length) {
                throw new IllegalArgumentException("a DER element runs past the end of the key");
            }
        }
    }
}
