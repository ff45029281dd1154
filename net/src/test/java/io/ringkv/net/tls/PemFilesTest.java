package io.ringkv.net.tls;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Reading PEM certificates and keys (the files in src/test/resources/pem, see the README there), and what a bad file says. */
class PemFilesTest {
    @TempDir
    Path dir;

    static Path pem(String name) {
        try {
            return Path.of(PemFilesTest.class.getClassLoader().getResource("pem/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest
    @CsvSource({
        "ec-cert.pem, ec-key.pem, EC",
        "ec-cert.pem, ec-key-sec1.pem, EC",
        "rsa-cert.pem, rsa-key.pem, RSA",
        "rsa-cert.pem, rsa-key-pkcs1.pem, RSA",
        "node-chain.pem, node-key.pem, EC",
    })
    void readsMatchingCertificateAndKey(String certificate, String key, String algorithm) throws Exception {
        TlsCredentials credentials = TlsCredentials.fromPem(pem(certificate), pem(key));
        assertThat(credentials.key().getAlgorithm(), is(algorithm));
        assertThat(credentials.serverContext().getProtocol(), is("TLS"));
    }

    @Test
    void readsAChainLeafFirst() throws Exception {
        TlsCredentials credentials = TlsCredentials.fromPem(pem("node-chain.pem"), pem("node-key.pem"));
        assertThat(credentials.chain().size(), is(2));
        assertThat(credentials.chain().get(0).getSubjectX500Principal().getName(), is("CN=ringkv-node"));
    }

    @Test
    void aKeyOfAnotherCertificateIsNamedAsSuch() {
        PemFileException e = assertThrows(PemFileException.class,
                () -> TlsCredentials.fromPem(pem("ec-cert.pem"), pem("other-ec-key.pem")));
        assertThat(e.file(), is(pem("other-ec-key.pem")));
        assertThat(e.getMessage(), containsString("is not the private key of the certificate in"));
    }

    @Test
    void aKeyOfAnotherAlgorithmIsNamedAsSuch() {
        PemFileException e = assertThrows(PemFileException.class,
                () -> TlsCredentials.fromPem(pem("ec-cert.pem"), pem("rsa-key.pem")));
        assertThat(e.getMessage(), allOf(containsString("rsa-key.pem"), containsString("RSA key"), containsString("EC key")));
    }

    @Test
    void aChainOutOfOrderSaysLeafFirst() {
        PemFileException e = assertThrows(PemFileException.class,
                () -> TlsCredentials.fromPem(pem("node-chain-reversed.pem"), pem("node-key.pem")));
        assertThat(e.file(), is(pem("node-chain-reversed.pem")));
        assertThat(e.getMessage(), containsString("the server's certificate first"));
    }

    @Test
    void anEncryptedKeySaysHowToDecryptIt() {
        PemFileException e = assertThrows(PemFileException.class, () -> PemPrivateKey.read(pem("ec-key-encrypted.pem")));
        assertThat(e.getMessage(), allOf(containsString("encrypted"), containsString("openssl pkcs8 -topk8 -nocrypt")));
    }

    @Test
    void aCertificateFileGivenAsKeySaysWhatWasExpected() {
        PemFileException e = assertThrows(PemFileException.class, () -> PemPrivateKey.read(pem("ec-cert.pem")));
        assertThat(e.getMessage(), allOf(containsString("BEGIN PRIVATE KEY"), containsString("CERTIFICATE")));
    }

    @Test
    void aKeyFileGivenAsCertificateSaysWhatWasExpected() {
        PemFileException e = assertThrows(PemFileException.class, () -> PemCertificates.read(pem("ec-key.pem")));
        assertThat(e.getMessage(), containsString("no '-----BEGIN CERTIFICATE-----' block"));
    }

    @Test
    void badFilesAreNamedWithTheirProblem() throws Exception {
        Path missing = dir.resolve("missing.pem");
        assertThat(assertThrows(PemFileException.class, () -> PemCertificates.read(missing)).getMessage(),
                allOf(containsString(missing.toString()), containsString("cannot read it")));
        Path text = Files.writeString(dir.resolve("text.pem"), "hello, not PEM\n");
        assertThat(assertThrows(PemFileException.class, () -> PemPrivateKey.read(text)).getMessage(),
                containsString("nor any PEM block"));
        Path cut = Files.writeString(dir.resolve("cut.pem"), Files.readString(pem("ec-cert.pem")).substring(0, 200));
        assertThat(assertThrows(PemFileException.class, () -> PemCertificates.read(cut)).getMessage(),
                containsString("has no matching '-----END CERTIFICATE-----'"));
        Path garbled = Files.writeString(dir.resolve("garbled.pem"),
                "-----BEGIN CERTIFICATE-----\nAAAAAAAA\n-----END CERTIFICATE-----\n");
        assertThat(assertThrows(PemFileException.class, () -> PemCertificates.read(garbled)).getMessage(),
                containsString("certificate 1 does not parse"));
        Path garbledKey = Files.writeString(dir.resolve("garbled-key.pem"),
                "-----BEGIN PRIVATE KEY-----\nAAAAAAAA\n-----END PRIVATE KEY-----\n");
        assertThat(assertThrows(PemFileException.class, () -> PemPrivateKey.read(garbledKey)).getMessage(),
                containsString("neither an RSA nor an EC key"));
    }

    @Test
    void trustedCertificatesMakeAClientContext() throws Exception {
        assertThat(TrustedCertificates.clientContext(PemCertificates.read(pem("ca-cert.pem"))).getProtocol(), is("TLS"));
    }
}
