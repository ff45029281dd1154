package io.ringkv.http.client.internal;

import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * Builds the client's {@link SSLEngine} for a route from the builder's SSLContext and
 * SSLParameters: client mode, SNI with the host name (RFC 6066 §3; never for IP literals), host
 * name verification (RFC 9110 §4.3.4, the JDK's "HTTPS" endpoint identification), and the ALPN
 * offer (RFC 7301). Stateless.
 */
final class TlsSetup {
    static final String ALPN_H2 = "h2";
    static final String ALPN_HTTP1 = "http/1.1";

    private TlsSetup() {
    }

    static SSLEngine engine(ClientConfig config, Route route, List<String> alpn) {
        SSLEngine engine = config.sslContext().createSSLEngine(route.host(), route.port());
        engine.setUseClientMode(true);
        SSLParameters parameters = copy(config.sslParameters() != null
                ? config.sslParameters() : config.sslContext().getDefaultSSLParameters());
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        if (!isIpLiteral(route.host())) {
            parameters.setServerNames(List.of(new SNIHostName(route.host())));
        }
        parameters.setApplicationProtocols(alpn.toArray(String[]::new));
        engine.setSSLParameters(parameters);
        return engine;
    }

    /** SSLParameters are mutable: never change the application's instance. */
    private static SSLParameters copy(SSLParameters source) {
        SSLParameters copy = new SSLParameters(source.getCipherSuites(), source.getProtocols());
        copy.setAlgorithmConstraints(source.getAlgorithmConstraints());
        copy.setNeedClientAuth(source.getNeedClientAuth());
        copy.setWantClientAuth(source.getWantClientAuth());
        copy.setUseCipherSuitesOrder(source.getUseCipherSuitesOrder());
        copy.setMaximumPacketSize(source.getMaximumPacketSize());
        if (source.getSNIMatchers() != null) {
            copy.setSNIMatchers(source.getSNIMatchers());
        }
        return copy;
    }

    private static boolean isIpLiteral(String host) {
        return host.indexOf(':') >= 0 || host.chars().allMatch(c -> c == '.' || Character.isDigit(c));
    }
}
