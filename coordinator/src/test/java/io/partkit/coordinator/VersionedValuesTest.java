package io.partkit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.coordinator.VersionedValues.Versioned;
import org.junit.jupiter.api.Test;

/** The {@link Versioned} record; the ability's contract is {@code MetadataStoreContractKit}'s. */
class VersionedValuesTest {

  @Test
  void versionedGoesByContentAndCopiesItsBytes() {
    byte[] given = {1, 2, 3};
    Versioned v = new Versioned(given, 7);
    given[0] = 9;
    assertThat(v.value()).containsExactly(1, 2, 3);
    v.value()[1] = 9;
    assertThat(v.value()).containsExactly(1, 2, 3);
    assertThat(v).isEqualTo(new Versioned(new byte[] {1, 2, 3}, 7))
        .hasSameHashCodeAs(new Versioned(new byte[] {1, 2, 3}, 7))
        .isNotEqualTo(new Versioned(new byte[] {1, 2, 3}, 8))
        .isNotEqualTo(new Versioned(new byte[] {1, 2}, 7));
    assertThat(v).hasToString("Versioned[version=7, 3 bytes 010203]");
    assertThat(new Versioned(new byte[40], 1).toString())
        .isEqualTo("Versioned[version=1, 40 bytes " + "00".repeat(32) + "...]");
  }

  @Test
  void aVersionIsPositive() {
    assertThatThrownBy(() -> new Versioned(new byte[0], VersionedValues.ABSENT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a stored value's version must be positive: 0");
  }
}
