"""Test helpers of the host suite: the fake flash with power cuts (`fakefs`), the loop's
invariant checks (`loop_check`), the chip's cost model (`costs`), the MicroPython runner of
the core tests, the placeholder UF2 and boot ROM. The simulated board itself is
tools/simboard/."""
