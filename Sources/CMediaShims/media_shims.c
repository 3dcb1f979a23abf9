#include "media_shims.h"
