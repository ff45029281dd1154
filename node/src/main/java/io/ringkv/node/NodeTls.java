package io.ringkv.node;

import io.ringkv.http.server.ServerTls;
import io.ringkv.net.tls.PemCertificates;
import io.ringkv.net.tls.PemFileException;
import io.ringkv.net.tls.TlsCredentials;
import io.ringkv.net.tls.TrustedCertificates;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;

/**
 * A node's TLS, read from the files {@code serve --tls-cert --tls-key [--tls-trust]} names: what
 * its server presents, and what it trusts when it calls its peers over https. Without a trust
 * file the node trusts the certificates of its own chain, so one certificate shared by every
 * node (or one CA, when the chain file ends with it) is all a cluster needs.
 *
 * @param server    the server's TLS: the chain and key, h2 then HTTP/1.1 by ALPN
 * @param peerTrust verifies peers' certificates (and their host names, by the client)
 */
record NodeTls(ServerTls server, SSLContext peerTrust) {

    /**
     * @param trustFile PEM certificates to trust for peers; null: the node's own chain
     * @throws PemFileException naming the file at fault and the problem
     */
    static NodeTls load(Path certificateFile, Path keyFile, Path trustFile) throws PemFileException {
        TlsCredentials credentials = TlsCredentials.fromPem(certificateFile, keyFile);
        SSLContext peerTrust = TrustedCertificates.clientContext(
                trustFile == null ? credentials.chain() : PemCertificates.read(trustFile));
        return new NodeTls(ServerTls.of(credentials.serverContext()), peerTrust);
    }
}
