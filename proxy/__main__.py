import sys

from proxy.cli.main import main

sys.exit(main())
