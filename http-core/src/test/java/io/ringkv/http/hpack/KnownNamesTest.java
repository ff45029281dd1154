package io.ringkv.http.hpack;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.util.Set;
import org.junit.jupiter.api.Test;

class KnownNamesTest {
    private final KnownNames names = new KnownNames(Set.of("cookie", "x-secret"), Set.of(":path", "x-id"));

    /** Every static entry is found by name and value; a name gives its first entry (§6.2). */
    @Test
    void everyStaticEntryIsFound() {
        for (int index = 1; index <= StaticTable.LENGTH; index++) {
            HeaderField entry = StaticTable.get(index);
            int info = names.of(new String(entry.name())); // an equal name, not the same object
            assertThat(entry.toString(), KnownNames.index(info, entry.value()), equalTo(index));
            int first = KnownNames.nameIndex(info);
            assertThat(StaticTable.get(first).name(), equalTo(entry.name()));
            assertThat(first == 1 || !StaticTable.get(first - 1).name().equals(entry.name()), equalTo(true));
        }
        assertThat(KnownNames.index(names.of(":method"), "PUT"), equalTo(0));
        assertThat(KnownNames.index(names.of(":status"), "404"), equalTo(13));
    }

    @Test
    void configuredFlagsAndUnknownNames() {
        assertThat(names.of("cookie") & KnownNames.SENSITIVE, equalTo(KnownNames.SENSITIVE));
        assertThat(KnownNames.nameIndex(names.of("cookie")), equalTo(32));
        assertThat(names.of("x-secret"), equalTo(KnownNames.SENSITIVE));
        assertThat(names.of("x-id"), equalTo(KnownNames.UNINDEXED));
        assertThat(names.of(":path") & ~0xffff, equalTo(KnownNames.UNINDEXED));
        assertThat(names.of("authorization") & ~0xffff, equalTo(0));
        assertThat(names.of("x-unknown"), equalTo(0));
        assertThat(names.of(""), equalTo(0));
        assertThat(KnownNames.nameIndex(names.of("Cookie")), equalTo(0)); // names are lowercase octets
    }
}
