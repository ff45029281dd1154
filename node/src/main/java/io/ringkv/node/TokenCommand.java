package io.ringkv.node;

import io.ringkv.node.access.AccessScope;
import io.ringkv.node.access.Grant;
import io.ringkv.node.access.KeyPrefix;
import io.ringkv.node.access.TokenFile;
import io.ringkv.node.access.TokenFileException;
import io.ringkv.ops.BearerToken;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ringkv token}: makes an access token, adds its hash to a token file and prints the
 * token, once: the file keeps only its SHA-256, so it cannot be shown again. The token alone goes
 * to stdout ({@code TOKEN=$(ringkv token ...)}), what was done to stderr.
 */
@Command(name = "token", mixinStandardHelpOptions = true,
        description = "Make an access token for nodes started with --auth-file: adds its SHA-256 to the file and prints "
                + "the token, the only time it is shown. Running nodes use it after kill -HUP.")
final class TokenCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--auth-file", required = true, paramLabel = "FILE",
            description = "The token file (created, readable by its owner only, when missing).")
    Path file;

    @Option(names = "--name", required = true, paramLabel = "NAME",
            description = "The token's name, unique in the file: 1 to 64 letters, digits, '.', '_' or '-'. Answers and "
                    + "logs name the token by it.")
    String name;

    @Option(names = "--scopes", required = true, paramLabel = "SCOPES",
            description = "Comma-separated: read (GET of /v0/entity and /v0/entities), write (PUT, DELETE), admin "
                    + "(/metrics, the dashboard /ui/). Independent: an application that reads and writes needs read,write.")
    String scopes;

    @Option(names = "--prefix", paramLabel = "KEY-PREFIX",
            description = "Limit the token to keys that start with this, percent-encoded as in a URL (%2F for /, %FF for "
                    + "the byte 0xFF). Ranges must then lie within it. Not with admin.")
    String prefix;

    @Option(names = "--expires-in", paramLabel = "DURATION",
            description = "Make the token expire this long from now (ISO-8601: P90D, PT12H): its line gets "
                    + "expires=INSTANT, and from then on nodes answer it 401. Without it the token lasts until its line is deleted.")
    Duration expiresIn;

    @Override
    public Integer call() {
        Grant grant;
        try {
            Set<AccessScope> parsed = AccessScope.parseList(scopes);
            KeyPrefix keys = prefix == null ? null : KeyPrefix.parse(prefix);
            if (keys != null && parsed.contains(AccessScope.ADMIN)) {
                throw new IllegalArgumentException("--prefix cannot go with the admin scope: admin pages cover every key");
            }
            if (expiresIn != null && (expiresIn.isNegative() || expiresIn.isZero())) {
                throw new IllegalArgumentException("--expires-in must be a positive duration, e.g. P90D or PT12H; got " + expiresIn);
            }
            grant = new Grant(name, parsed, keys, expiresIn == null ? null
                    : Instant.now().plus(expiresIn).truncatedTo(ChronoUnit.SECONDS));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        String token = BearerToken.generate();
        try {
            TokenFile.add(file, grant, BearerToken.sha256(token));
        } catch (TokenFileException e) {
            throw new ParameterException(spec.commandLine(), "--auth-file " + e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println(token);
        out.flush();
        PrintWriter err = spec.commandLine().getErr();
        err.println("ringkv token: added '" + name + "' (" + AccessScope.format(grant.scopes())
                + (grant.prefix() == null ? "" : ", keys starting with " + grant.prefix().encoded())
                + (grant.expiresAt() == null ? "" : ", expires " + grant.expiresAt()) + ") to " + file
                + ". The file holds its SHA-256 only: keep the token now, it is not shown again. Nodes running with "
                + "this file use it after kill -HUP <pid>.");
        err.flush();
        return 0;
    }
}
