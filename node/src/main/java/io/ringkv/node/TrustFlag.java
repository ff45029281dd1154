package io.ringkv.node;

import io.ringkv.net.tls.PemCertificates;
import io.ringkv.net.tls.PemFileException;
import io.ringkv.net.tls.TrustedCertificates;
import java.net.http.HttpClient;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The {@code --tls-trust FILE} flag of the commands that call a node ({@code status},
 * {@code repair}): the client trusts the PEM certificates in the file (the nodes' shared
 * certificate or their CA) instead of the JDK's default roots. Stateless.
 */
final class TrustFlag {
    static final String DESCRIPTION = "For https nodes: PEM certificates (the nodes' certificate, or their CA) to trust "
            + "instead of the JDK's default roots.";

    private TrustFlag() {
    }

    /** Sets the builder's TLS context from {@code file} (nothing when null); a bad file is a usage error naming it. */
    static HttpClient.Builder apply(HttpClient.Builder builder, Path file, CommandLine commandLine) {
        if (file == null) {
            return builder;
        }
        try {
            return builder.sslContext(TrustedCertificates.clientContext(PemCertificates.read(file)));
        } catch (PemFileException e) {
            throw new ParameterException(commandLine, "--tls-trust " + e.getMessage());
        }
    }
}
