// Link is a header-only template; this file gives the folder its library target.
#include "sim/net/link.h"
