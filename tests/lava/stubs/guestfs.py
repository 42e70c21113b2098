"""Stand-in for python3-guestfs, which lava_dispatcher imports at module level
(lava_dispatcher/utils/filesystem.py) but uses only to edit disk images (qemu and
image deployments). The "ssh" device type never calls it. Installing the real
module pulls libguestfs, qemu and a kernel appliance, so lava_lab.py puts this
directory on lava-run's PYTHONPATH instead: any real use fails loudly."""


class GuestFS:
    def __init__(self, *args, **kwargs):
        raise RuntimeError(
            "guestfs is not installed: tests/lava runs only device types that do not edit images"
        )
