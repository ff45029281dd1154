package io.ringkv.ops;

import io.ringkv.net.tls.PemCertificates;
import io.ringkv.net.tls.PemFileException;
import io.ringkv.net.tls.TlsCredentials;
import io.ringkv.net.tls.TrustedCertificates;
import java.net.http.HttpClient;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The TLS options of the commands that call a node ({@code status}, {@code repair}, {@code meta}):
 * {@code --tls-trust FILE}, the PEM certificates to trust (the nodes' shared certificate or their
 * CA) instead of the JDK's default roots, and {@code --tls-client-cert FILE --tls-client-key FILE},
 * a certificate to present when the node asks for one ({@code serve --tls-client-auth}). A picocli
 * mixin; a bad file or an incomplete pair is a usage error naming the option.
 *
 * <p>Threading: used by the command's one thread.
 */
final class ClientTlsOptions {

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--tls-trust", paramLabel = "FILE",
            description = "For https nodes: PEM certificates (the nodes' certificate, or their CA) to trust "
                    + "instead of the JDK's default roots.")
    Path trust;

    @Option(names = "--tls-client-cert", paramLabel = "FILE",
            description = "For nodes that ask for a client certificate (serve --tls-client-auth): the certificate "
                    + "chain to present, PEM. Needs --tls-client-key and --tls-trust.")
    Path clientCertificate;

    @Option(names = "--tls-client-key", paramLabel = "FILE",
            description = "The private key of --tls-client-cert, PEM, unencrypted.")
    Path clientKey;

    /** Sets the builder's TLS context from the options (nothing when none is given). */
    HttpClient.Builder apply(HttpClient.Builder builder) {
        if ((clientCertificate == null) != (clientKey == null)) {
            throw new ParameterException(spec.commandLine(), "--tls-client-cert and --tls-client-key go together");
        }
        if (clientCertificate != null && trust == null) {
            throw new ParameterException(spec.commandLine(), "--tls-client-cert needs --tls-trust (the nodes' certificate or CA)");
        }
        if (trust == null) {
            return builder;
        }
        String option = "--tls-trust ";
        try {
            var anchors = PemCertificates.read(trust);
            if (clientCertificate == null) {
                return builder.sslContext(TrustedCertificates.clientContext(anchors));
            }
            option = "--tls-client-cert/--tls-client-key ";
            return builder.sslContext(TrustedCertificates.mutualContext(TlsCredentials.fromPem(clientCertificate, clientKey), anchors));
        } catch (PemFileException e) {
            throw new ParameterException(spec.commandLine(), option + e.getMessage());
        }
    }
}
