#ifndef ISOBAR_CLIBZMQ_SHIM_H
#define ISOBAR_CLIBZMQ_SHIM_H
#include <zmq.h>
#endif
