/* Ctrl-C and friends during a measurement: the first signal stops the sample in flight so the results
 * so far can be written; the second leaves at once, removing the half-written temp file. */
#pragma once

void install_interrupt_handlers(void);
