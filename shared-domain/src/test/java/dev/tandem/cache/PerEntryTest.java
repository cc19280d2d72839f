package dev.tandem.cache;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A wire form is derived once per read-model instance: what an L1 hit returns again is not encoded
 * again, and a value read anew (after an invalidation) is, even when it equals the old one — so a
 * form can never belong to a value the cache no longer answers.
 */
class PerEntryTest {

    private record View(long id, List<String> sessions) {
    }

    @Test
    void theSameInstanceIsDerivedOnce() {
        AtomicInteger derivations = new AtomicInteger();
        PerEntry<View, String> forms = new PerEntry<>(view -> "form " + derivations.incrementAndGet());
        View cached = new View(1, List.of("a"));

        String first = forms.of(cached);
        assertThat(forms.of(cached)).isSameAs(first);
        assertThat(derivations).hasValue(1);
    }

    @Test
    void anEqualInstanceReadAnewIsDerivedAgain() {
        AtomicInteger derivations = new AtomicInteger();
        PerEntry<View, String> forms = new PerEntry<>(view -> "form " + derivations.incrementAndGet());
        View before = new View(1, List.of("a"));
        View reread = new View(1, List.of("a"));
        assertThat(reread).isEqualTo(before);

        assertThat(forms.of(before)).isEqualTo("form 1");
        assertThat(forms.of(reread)).isEqualTo("form 2");
    }
}
