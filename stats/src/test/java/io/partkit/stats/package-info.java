/** Tests of the balance and movement figures on hand-checked assignments. */
package io.partkit.stats;
