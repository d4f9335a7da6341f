"""test_bootimg.py - checks what `make hikey960` built (tools/runtests.py runs
it as its "hikey960-bootimg" run; `python3 tools/test_bootimg.py` alone).

Owns: the HiKey960 boot image's contract with the board's firmware, checked
the way an independent reader sees it: unpack_bootimg (Debian's mkbootimg
package) gives back the kernel and the "second" stage (the DTB) byte for
byte, and the header carries the base, offsets, page size and command line
the Makefile asked for. Does not own building the image (Makefile).
"""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

BUILD = os.environ.get("BUILD", "build")
BOOT_IMG = os.path.join(BUILD, "hikey960", "boot.img")


class HiKey960BootImage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(BOOT_IMG):
            raise unittest.SkipTest("%s missing (make hikey960 builds it)" % BOOT_IMG)
        cls.out = tempfile.mkdtemp(prefix="bootimg-")
        r = subprocess.run(["unpack_bootimg", "--boot_img", BOOT_IMG, "--out", cls.out],
                           capture_output=True, text=True)
        cls.info = r.stdout
        cls.rc = r.returncode

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.out, ignore_errors=True)

    def same(self, unpacked, original):
        with open(os.path.join(self.out, unpacked), "rb") as a, open(original, "rb") as b:
            self.assertTrue(a.read() == b.read(), "%s differs from %s" % (unpacked, original))

    def field(self, name):
        m = re.search(r"^%s: *(.*)$" % re.escape(name), self.info, re.M)
        self.assertIsNotNone(m, "unpack_bootimg printed no %r" % name)
        return m.group(1).strip()

    def test_unpacks(self):
        self.assertEqual(self.rc, 0, self.info)
        self.assertEqual(self.field("boot_magic"), "ANDROID!")

    def test_kernel_is_the_image(self):
        self.same("kernel", os.path.join(BUILD, "Image"))

    def test_second_is_the_hikey960_dtb(self):
        self.same("second", os.path.join(BUILD, "dts", "hi3660-hikey960.dtb"))

    def test_kernel_is_an_efi_application(self):
        with open(os.path.join(self.out, "kernel"), "rb") as f:
            head = f.read(0x48)
        self.assertEqual(head[:2], b"MZ")
        pe = int.from_bytes(head[0x3c:0x40], "little")
        self.assertEqual(head[0x38:0x3c], b"ARM\x64")
        self.assertEqual(head[pe:pe + 4], b"PE\0\0")

    def test_header_values(self):
        self.assertEqual(int(self.field("kernel load address"), 16), 0x80000)
        self.assertEqual(int(self.field("second bootloader load address"), 16), 0xf00000)
        self.assertEqual(int(self.field("kernel tags load address"), 16), 0x7a00000)
        self.assertEqual(int(self.field("page size")), 2048)
        self.assertEqual(int(self.field("boot image header version")), 0)


if __name__ == "__main__":
    unittest.main()
