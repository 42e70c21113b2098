// Includes NF_PLACED_FILE (a workload's hot-code header, which starts by including placed.h) once
// per code placement, with NF_PLACEMENT = 0 .. kPlacements - 1, each copy in namespace
// placementL. Define NF_PLACED_FILE and NF_PLACED_SECTION (the workload's part of the section name)
// before including this; no include guard, by design. NF_EACH_PLACEMENT (placement.h) then makes a
// table of the copies.

#define NF_PLACEMENT 0
#include NF_PLACED_FILE
#undef NF_PLACEMENT
#define NF_PLACEMENT 1
#include NF_PLACED_FILE
#undef NF_PLACEMENT
#define NF_PLACEMENT 2
#include NF_PLACED_FILE
#undef NF_PLACEMENT
#define NF_PLACEMENT 3
#include NF_PLACED_FILE
#undef NF_PLACEMENT
#define NF_PLACEMENT 4
#include NF_PLACED_FILE
#undef NF_PLACEMENT
#define NF_PLACEMENT 5
#include NF_PLACED_FILE
#undef NF_PLACEMENT
#define NF_PLACEMENT 6
#include NF_PLACED_FILE
#undef NF_PLACEMENT
#define NF_PLACEMENT 7
#include NF_PLACED_FILE
#undef NF_PLACEMENT

#undef NF_PLACED_FILE
#undef NF_PLACED_SECTION
