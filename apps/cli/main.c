#include "weft/weft.h"
#include <stdio.h>
int main(void) { printf("weft %d.%d.%d\n", WF_VERSION_MAJOR, WF_VERSION_MINOR, WF_VERSION_PATCH); return 0; }
