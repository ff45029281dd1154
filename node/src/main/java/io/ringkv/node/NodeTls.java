package io.ringkv.node;

import io.ringkv.http.server.ServerTls;
import io.ringkv.net.tls.PemCertificates;
import io.ringkv.net.tls.PemFileException;
import io.ringkv.net.tls.TlsCredentials;
import io.ringkv.net.tls.TrustedCertificates;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * A node's TLS, read from the files {@code serve --tls-cert --tls-key [--tls-trust]
 * [--tls-client-auth --tls-client-trust]} names: what its server presents, and what it trusts
 * when it calls its peers over https. Without a trust file the node trusts the certificates of
 * its own chain, so one certificate shared by every node (or one CA, when the chain file ends
 * with it) is all a cluster needs.
 *
 * <p>With client certificates on ({@code want} or {@code need}) the server verifies a client's
 * chain against the peers' anchors and those of the client trust file: a peer calling with its
 * node certificate is verified like any client (and, naming no entry of the token file, is still
 * admitted to the internal plane, which checks its own proof). The node's calls to its peers
 * always present its certificate and key when a peer asks, so a cluster whose nodes all run
 * {@code --tls-client-auth need} keeps replicating.
 *
 * @param server    the server's TLS: the chain and key, h2 then HTTP/1.1 by ALPN, the client-certificate mode
 * @param peerTrust verifies peers' certificates (and their host names, by the client), presents this node's
 */
record NodeTls(ServerTls server, SSLContext peerTrust) {

    /**
     * @param trustFile       PEM certificates to trust for peers; null: the node's own chain
     * @param clientAuth      whether the server asks clients for a certificate
     * @param clientTrustFile PEM certificates (CAs) that application clients' certificates chain to,
     *                        besides the peers' anchors; null: the peers' anchors alone
     * @throws PemFileException naming the file at fault and the problem
     */
    static NodeTls load(Path certificateFile, Path keyFile, Path trustFile, ServerTls.ClientAuth clientAuth,
                        Path clientTrustFile) throws PemFileException {
        TlsCredentials credentials = TlsCredentials.fromPem(certificateFile, keyFile);
        List<java.security.cert.X509Certificate> peerAnchors = trustFile == null ? credentials.chain()
                : PemCertificates.read(trustFile);
        SSLContext peerTrust = TrustedCertificates.mutualContext(credentials, peerAnchors);
        if (clientAuth == ServerTls.ClientAuth.NONE) {
            return new NodeTls(ServerTls.of(credentials.serverContext()), peerTrust);
        }
        List<java.security.cert.X509Certificate> clientAnchors = new ArrayList<>(peerAnchors);
        if (clientTrustFile != null) {
            clientAnchors.addAll(PemCertificates.read(clientTrustFile));
        }
        SSLContext server = TrustedCertificates.mutualContext(credentials, clientAnchors);
        return new NodeTls(ServerTls.of(server).withClientAuth(clientAuth), peerTrust);
    }
}
