package io.ringkv.http.server;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.is;

import java.lang.module.ModuleDescriptor;
import org.junit.jupiter.api.Test;

/** The module descriptor holds: the tests run inside the named module, and only the API package is exported. */
class ModuleBoundaryTest {
    @Test
    void onlyTheApiPackageIsExported() {
        Module module = HttpServer.class.getModule();
        assertThat("tests run on the module path", module.isNamed(), is(true));
        assertThat(module.getName(), is("io.ringkv.http.server"));
        assertThat(module.getDescriptor().exports().stream().map(ModuleDescriptor.Exports::source).toList(),
                containsInAnyOrder("io.ringkv.http.server"));
        assertThat(module.isExported("io.ringkv.http.server.internal"), is(false));
        assertThat(module.getDescriptor().exports().stream().allMatch(e -> e.targets().isEmpty()), is(true));
    }
}
