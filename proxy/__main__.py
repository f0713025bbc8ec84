import sys

from memtap.proxy.cli.main import main

sys.exit(main())
