package io.ringkv.node.access;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.security.auth.x500.X500Principal;

/**
 * The names a client certificate goes by, for matching it with a {@code cert:} line of the token
 * file: the common names (CN) of its subject, and its subject alternative names of the kinds that
 * are text (DNS name, e-mail address, URI, IP address). The certificate must already have been
 * verified by the TLS handshake; this only reads it. Stateless.
 */
public final class CertificateIdentity {
    /** GeneralName tags of RFC 5280 §4.2.1.6 that are text. */
    private static final int RFC822_NAME = 1;
    private static final int DNS_NAME = 2;
    private static final int URI = 6;
    private static final int IP_ADDRESS = 7;

    private CertificateIdentity() {
    }

    /** Every name of {@code certificate}: subject CNs first, then subject alternative names. */
    public static List<String> names(X509Certificate certificate) {
        List<String> names = new ArrayList<>();
        try {
            for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName(X500Principal.RFC2253)).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN") && rdn.getValue() instanceof String cn) {
                    names.add(cn);
                }
            }
        } catch (InvalidNameException e) {
            // The JDK wrote the name itself in RFC 2253 form; one it cannot read back has no CN to match.
        }
        Collection<List<?>> alternatives;
        try {
            alternatives = certificate.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            // A verified certificate with an unreadable extension: match by its CN alone.
            return List.copyOf(names);
        }
        if (alternatives != null) {
            for (List<?> alternative : alternatives) {
                if (alternative.size() == 2 && alternative.get(0) instanceof Integer tag && alternative.get(1) instanceof String value
                        && (tag == RFC822_NAME || tag == DNS_NAME || tag == URI || tag == IP_ADDRESS)) {
                    names.add(value);
                }
            }
        }
        return List.copyOf(names);
    }

    /** The subject, for answers and logs. */
    public static String subject(X509Certificate certificate) {
        return certificate.getSubjectX500Principal().getName(X500Principal.RFC2253);
    }
}
